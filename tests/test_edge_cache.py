"""biji behind a real Varnish (config/varnish/biji.vcl, varnish-modules' xkey): gunicorn, a
``db_worker`` polling every second and Varnish, started for the test on a SQLite file of its own.
An edit is purged and seen through the edge within 2 s of its commit; pages that do not show it
stay kept; nothing private is ever stored. ``make test`` runs the first case; every case runs in
``make test-interop`` (``BIJI_TEST_INTEROP=1``).
"""

import contextlib
import http.cookiejar
import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests import processes
from tests.processes import ROOT, gunicorn, manage, migrate
from tests.redis_server import free_port
from tests.varnish_server import Varnish, available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not available(), reason="needs Varnish: scripts/install-edge.sh"),
]
interop = pytest.mark.skipif(
    not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it"
)

FRESH_WITHIN = 2.0  # seconds from a change's commit to the edge serving it


def wait_until(condition, seconds=10, every=0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(every)
    raise AssertionError(f"not within {seconds} s")


class EdgeSite:
    """A site on its own SQLite file: gunicorn, one worker, Varnish in front."""

    def __init__(self, tmp_path, **settings):
        self.env = processes.site_env(
            f"sqlite:///{tmp_path / 'db.sqlite3'}",
            tmp_path / "media",
            BIJI_EDGE_PURGER="varnish",
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            **settings,
        )
        self.processes = []
        self.varnish = None

    def start(self):
        self.port = free_port()
        self.varnish = Varnish(self.port)
        self.env["BIJI_EDGE_PURGE_URLS"] = self.varnish.url
        self.serve()
        self.work()
        wait_until(lambda: self.origin("/healthz", status_only=True) == 200, seconds=30)
        wait_until(lambda: self.varnish.get("/")[0] == 200, seconds=30, every=0.2)
        wait_until(lambda: queue_empty(self))  # a new release's purge of every page: done
        return self

    def serve(self):
        self.gunicorn = gunicorn(self.env, self.port)
        self.processes.append(self.gunicorn)

    def work(self):
        self._start([sys.executable, "manage.py", "db_worker", "--no-startup-delay"])

    def _start(self, command):
        process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.processes.append(process)
        return process

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        if self.varnish:
            self.varnish.stop()

    def shell(self, code):
        """Run ``code`` in ``manage.py shell``; its output."""
        return manage(self.env, "shell", "-v", "0", "-c", code)

    def change(self, code):
        """Run ``code`` (a change); the time its transaction committed."""
        return float(self.shell(code + "\nimport time; print(time.time())").split()[-1])

    def origin(self, path, status_only=False):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:  # noqa: S310
                return r.status if status_only else r.read().decode()
        except OSError:
            return None


@pytest.fixture
def edge_site(tmp_path):
    site = EdgeSite(tmp_path)
    migrate(site.env)
    site.shell(
        "from tests.factories import make_note, make_tag\n"
        "make_note('Kernel launch', slug='kernel', tags=[make_tag('CUDA', '库达')])\n"
        "make_note('Memory fences', slug='fences', tags=[make_tag('Memory', '内存')])"
    )
    try:
        yield site.start()
    finally:
        site.stop()


def edge_state(response):
    return response[1].get("X-Edge")


def test_an_edit_is_seen_through_the_edge_within_two_seconds_and_other_pages_stay_kept(
    edge_site,
):
    varnish = edge_site.varnish
    pages = ["/notes/kernel/", "/notes/fences/", "/", "/tags/memory/"]
    for path in pages:
        varnish.get(path)
    assert [edge_state(varnish.get(path)) for path in pages] == ["hit"] * 4
    status, headers, body = varnish.get("/notes/kernel/")
    assert "Kernel launch" in body
    assert not {"xkey", "Surrogate-Key", "Cache-Tag"} & set(headers)  # the edge's business

    committed = edge_site.change(
        "from blog.models import Note\n"
        "note = Note.objects.get(slug='kernel'); note.title = 'Kernel launch, revised'; note.save()"
    )
    seen = wait_until(
        lambda: "Kernel launch, revised" in varnish.get("/notes/kernel/")[2] and time.time(),
        seconds=10,
        every=0.02,
    )
    assert seen - committed <= FRESH_WITHIN
    assert "Kernel launch, revised" in varnish.get("/")[2]  # the list showing it: purged too
    # The pages not showing the note are still the edge's own copies.
    assert edge_state(varnish.get("/notes/fences/")) == "hit"
    assert edge_state(varnish.get("/tags/memory/")) == "hit"

    # A signed-in author (marker or session cookie) is never answered from the edge.
    for cookie in ("biji_author=x", "sessionid=y"):
        assert edge_state(varnish.get("/notes/fences/", {"Cookie": cookie})) == "pass"
    # A reader's other cookies neither split nor reach the kept page.
    assert edge_state(varnish.get("/notes/fences/", {"Cookie": "_ga=1; csrftoken=z"})) == "hit"


# --- every case: make test-interop ------------------------------------------------------------

PAGES = [
    "/",
    "/en/",
    "/notes/kernel/",
    "/notes/fences/",
    "/en/notes/kernel/",
    "/tags/",
    "/tags/cuda/",
    "/tags/memory/",
    "/series/",
    "/archive/",
    "/feed/",
    "/sitemap.xml",
]

# Each change a reader can see, as `manage.py shell` code.
CHANGES = {
    "a note's title": "n = Note.objects.get(slug='kernel'); n.title = 'Kernel v2'; n.save()",
    "a note's body": "n = Note.objects.get(slug='fences'); n.body += '\\n\\nMore.'; n.save()",
    "a tag added to a note": "Note.objects.get(slug='fences').tags.add(Tag.objects.get(name='CUDA'))",  # noqa: E501
    "a tag renamed": "t = Tag.objects.get(name='Memory'); t.name_zh = '存储'; t.save()",
    "a series renamed": "s = Series.objects.get(); s.title_en = 'GPU notes, revised'; s.save()",
    "a note published": "make_note('Warp shuffles', slug='shuffles', series=Series.objects.get())",
    "a note unpublished": "n = Note.objects.get(slug='shuffles'); n.status = 'draft'; n.save()",
    "the site's title": "s = SiteSettings.load(); s.title = 'GPU 笔记 (new)'; s.save()",
    "a page added": "make_page('Colophon', slug='colophon')",
    "a note deleted": "Note.objects.get(slug='fences').delete()",
}
SHELL_IMPORTS = (
    "from blog.models import Note, Series, SiteSettings, Tag\n"
    "from tests.factories import make_note, make_page\n"
)


def comparable(body):
    return re.sub(r'nonce="[^"]*"', "", body)


def queue_empty(site):
    """No task waiting or running (read from the site's SQLite file)."""
    database = site.env["DATABASE_URL"].removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(database, timeout=10)) as db:
        (waiting,) = db.execute(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult "
            "WHERE status IN ('READY', 'RUNNING')"
        ).fetchone()
    return waiting == 0


def stale_pages(site):
    """The pages Varnish serves otherwise than gunicorn does now."""
    stale = []
    for path in PAGES:
        status, _headers, body = site.varnish.get(path)
        origin = site.origin(path)
        if origin is not None and comparable(body) != comparable(origin):
            stale.append(path)
    return stale


@interop
def test_no_change_leaves_a_stale_page_at_the_edge(edge_site):
    edge_site.shell(
        SHELL_IMPORTS + "from tests.factories import make_series\n"
        "s = make_series('GPU notes', 'GPU 笔记')\n"
        "Note.objects.filter(slug='kernel').update(series=s)"
    )
    wait_until(lambda: queue_empty(edge_site))
    for name, code in CHANGES.items():
        for path in PAGES:  # every page kept at the edge before the change
            edge_site.varnish.get(path)
        committed = edge_site.change(SHELL_IMPORTS + code)
        wait_until(lambda: queue_empty(edge_site))
        assert stale_pages(edge_site) == [], f"after {name}"
        assert time.time() - committed < 10, name


@interop
def test_a_note_coming_due_shows_at_the_edge_without_a_purge(edge_site):
    edge_site.shell(
        "from datetime import timedelta\nfrom tests.factories import make_note\n"
        "make_note('Due soon', slug='due', published_ago=-timedelta(seconds=3))"
    )
    wait_until(lambda: queue_empty(edge_site))
    assert "Due soon" not in edge_site.varnish.get("/")[2]
    assert edge_state(edge_site.varnish.get("/")) == "hit"
    wait_until(lambda: "Due soon" in edge_site.varnish.get("/")[2], seconds=8, every=0.1)
    assert edge_site.varnish.get("/notes/due/")[0] == 200


@interop
def test_a_new_release_purges_every_page_once(edge_site):
    for path in PAGES:
        edge_site.varnish.get(path)
    assert edge_state(edge_site.varnish.get("/tags/")) == "hit"
    edge_site.gunicorn.terminate()
    edge_site.gunicorn.wait(timeout=10)
    edge_site.env["BIJI_RELEASE"] = "the-next-release"
    edge_site.serve()  # its first request (Varnish's probe of /healthz, say) purges the edge
    wait_until(lambda: edge_site.origin("/healthz", status_only=True) == 200)
    wait_until(lambda: edge_state(edge_site.varnish.get("/tags/")) == "miss", seconds=10)


def log_in(site):
    """A signed-in author's cookies, got through Varnish as a browser would."""
    site.shell(
        "from django.contrib.auth.models import User\n"
        "User.objects.create_superuser('author', 'a@example.com', 'correct horse battery')"
    )
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    login = site.varnish.url + "admin/login/"
    page = opener.open(login).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {
            "username": "author",
            "password": "correct horse battery",
            "csrfmiddlewaretoken": token,
            "next": "/admin/",
        }
    ).encode()
    posted = urllib.request.Request(login, data=form, headers={"Referer": login})  # noqa: S310
    opener.open(posted).read()
    assert {cookie.name for cookie in jar} >= {"sessionid", "biji_author"}
    return opener


@interop
def test_nothing_private_is_ever_kept_at_the_edge(edge_site):
    token = edge_site.shell(
        "from tests.factories import make_draft\nfrom blog.models.share_links import "
        "make_share_token\nprint(make_share_token(make_draft(title='Secret draft', slug='draft')))"
    ).strip()
    author = log_in(edge_site)
    for _ in range(2):
        with author.open(edge_site.varnish.url + "admin/blog/note/") as response:
            assert response.headers["X-Edge"] == "pass"
        with author.open(edge_site.varnish.url + "notes/kernel/") as response:
            assert response.headers["X-Edge"] == "pass"
    for path in ("/notes/draft/share/" + token + "/", "/search/?q=kernel", "/admin/login/"):
        for _ in range(2):
            status, headers, body = edge_site.varnish.get(path)
            assert headers["X-Edge"] != "hit", path
    assert "Secret draft" in edge_site.varnish.get(f"/notes/draft/share/{token}/")[2]
    assert edge_site.varnish.get("/notes/draft/")[0] == 404  # a reader: no draft from the edge
    subscribe = urllib.request.Request(  # noqa: S310 (a local URL)
        edge_site.varnish.url + "subscribe/", data=b"email=a%40example.com", method="POST"
    )
    for _ in range(2):
        try:
            with urllib.request.urlopen(subscribe, timeout=10) as response:  # noqa: S310
                assert response.headers["X-Edge"] == "pass"
        except urllib.error.HTTPError as error:
            assert error.headers["X-Edge"] == "pass"
    # What an author saw is not what the next reader gets: the reader's page is the edge's own.
    reader = edge_site.varnish.get("/notes/kernel/")
    assert "/admin/" not in reader[2] or "login" in reader[2]
