"""What an edge cache is told: the keys a page names, the purge a committed change queues, and the
requests each purger sends (Varnish, Fastly and Cloudflare's APIs, answered here by a local
server: biji cannot reach the real APIs from a test; tests/test_edge_cache.py uses a real
Varnish)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django_tasks_db.models import DBTaskResult

from blog.caching import edge, purgers
from blog.caching.edge import purge_edge
from blog.models import Note
from tests.background import run_queued_tasks
from tests.factories import make_note, make_tag


@pytest.fixture
def varnish_purger(settings):
    settings.BIJI_EDGE_PURGER = "varnish"
    settings.BIJI_EDGE_PURGE_URLS = ["http://127.0.0.1:9/"]  # never reached: tasks only queued


def keys(response, header="xkey"):
    return set(response[header].replace(",", " ").split())


@pytest.mark.django_db
def test_a_page_names_the_parts_it_shows_in_each_edges_header(client, settings):
    settings.BIJI_EDGE_KEY_PREFIX = "blog1-"
    note = make_note(tags=[make_tag()])
    response = client.get(note.get_absolute_url())
    named = keys(response)
    assert {"blog1-site", f"blog1-note:{note.pk}"} <= named
    assert keys(response, "Surrogate-Key") == named
    assert response["Cache-Tag"] == ",".join(sorted(named))
    kept = client.get(note.get_absolute_url())  # from the page cache: the same keys
    assert kept["X-Page-Cache"] == "hit" and keys(kept) == named
    home = keys(client.get("/"))
    assert f"blog1-note:{note.pk}" in home and "blog1-notes" in home


@pytest.mark.django_db
def test_what_biji_would_not_keep_is_kept_out_of_a_purged_edge(client, varnish_purger):
    make_note(slug="kernel")
    response = client.get("/notes/kernel/?utm_source=feed")  # not the canonical URL
    assert "xkey" not in response and "s-maxage=0" in response["Cache-Control"]
    assert "xkey" not in client.get("/search/?q=GPU")


@pytest.mark.django_db
def test_what_the_author_sees_is_private_to_every_shared_cache(admin_client):
    note = make_note()
    admin_client.get("/admin/")  # the admin sets the author's marker
    response = admin_client.get(note.get_absolute_url())
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert "private" in directives and "public" not in directives and "xkey" not in response


@pytest.mark.django_db(transaction=True)
def test_a_committed_change_queues_one_purge_of_the_parts_it_moved(varnish_purger):
    note = make_note()
    DBTaskResult.objects.all().delete()
    note.title = "Kernel launch"
    note.save()
    (purge,) = DBTaskResult.objects.filter(task_path="blog.caching.edge.purge_edge")
    assert f"note:{note.pk}" in purge.args_kwargs["args"][0]


@pytest.mark.django_db(transaction=True)
def test_a_change_of_hundreds_of_parts_purges_every_page_in_one_request(varnish_purger):
    edge.purge_moved_parts(names=[f"note:{pk}" for pk in range(1, 500)])
    (purge,) = DBTaskResult.objects.filter(task_path="blog.caching.edge.purge_edge")
    assert purge.args_kwargs["args"][0] == ["site"]


@pytest.mark.django_db(transaction=True)
def test_without_an_edge_nothing_is_queued():
    make_note()
    assert not DBTaskResult.objects.filter(task_path="blog.caching.edge.purge_edge").exists()


class Recorder(BaseHTTPRequestHandler):
    """Answers every request as ``server.answer`` says, and keeps it."""

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.seen.append((self.command, self.path, headers, body))
        status, text = self.server.answer
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    do_PURGE = do_POST = _answer  # noqa: N815 (http.server's names)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    server.seen, server.answer = [], (200, b'{"success": true, "errors": []}')
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def address(server):
    return f"http://127.0.0.1:{server.server_address[1]}"


MANY = [f"note:{n}" for n in range(300)]


def test_varnish_is_sent_purge_requests_with_the_keys(api):
    purgers.VarnishPurger([address(api) + "/"]).purge(MANY)
    assert [(method, len(headers["xkey-purge"].split())) for method, _, headers, _ in api.seen] == [
        ("PURGE", 100)
    ] * 3


def test_fastly_is_sent_its_api_call(api):
    purgers.FastlyPurger("svc1", "token1", address(api)).purge(MANY)
    assert [(m, p, h["fastly-key"]) for m, p, h, _ in api.seen] == [
        ("POST", "/service/svc1/purge", "token1")
    ] * 2
    assert len(api.seen[0][2]["surrogate-key"].split()) == 256


def test_cloudflare_is_sent_its_api_call(api):
    purgers.CloudflarePurger("zone1", "token1", address(api)).purge(MANY[:40])
    (method, path, headers, body), second = api.seen
    assert (method, path, headers["authorization"]) == (
        "POST",
        "/zones/zone1/purge_cache",
        "Bearer token1",
    )
    assert json.loads(body) == {"tags": MANY[:30]}
    api.answer = (200, b'{"success": false, "errors": [{"code": 1134}]}')
    with pytest.raises(purgers.PurgeFailed, match="1134"):
        purgers.CloudflarePurger("zone1", "token1", address(api)).purge(["site"])


@pytest.mark.django_db(transaction=True)
def test_a_purge_the_edge_refuses_is_retried_then_shown_failed(api, settings, admin_client):
    settings.BIJI_EDGE_PURGER = "varnish"
    settings.BIJI_EDGE_PURGE_URLS = [address(api) + "/"]
    settings.TASKS = {
        "default": {**settings.TASKS["default"], "OPTIONS": {"retry_delay": 0}},
    }
    api.answer = (403, b"Not allowed to purge")
    purge_edge.enqueue(["note:1"])
    run_queued_tasks()
    assert len(api.seen) == 6  # every attempt asked, then the task failed
    result = DBTaskResult.objects.get(task_path="blog.caching.edge.purge_edge")
    assert result.status == "FAILED"
    page = admin_client.get("/admin/blog/backgroundtask/").content.decode()
    assert "blog.caching.edge.purge_edge" in page and "answered 403" in page


@pytest.mark.django_db(transaction=True)
def test_a_new_release_purges_every_page_once(varnish_purger, client, monkeypatch):
    monkeypatch.setattr(edge, "_release_seen", False)
    client.get("/")
    monkeypatch.setattr(edge, "_release_seen", False)  # another process of the same release
    client.get("/")
    queued = DBTaskResult.objects.filter(task_path="blog.caching.edge.purge_edge")
    assert [task.args_kwargs["args"][0] for task in queued.all()] == [["site"]]
    monkeypatch.setattr(edge.release, "fingerprint", lambda: "next-release")
    monkeypatch.setattr(edge, "_release_seen", False)
    client.get("/")
    assert queued.all().count() == 2


def test_the_purge_rules_need_their_settings(settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.BIJI_EDGE_PURGER, settings.BIJI_EDGE_PURGE_URLS = "varnish", []
    with pytest.raises(ImproperlyConfigured):
        purgers.configured()
    assert Note  # the models import before the purgers' settings are read
