"""biji followed from a real independent fediverse server (issue 39): bovine-herd, started by the
run (tests/fediverse_peer.py), and biji over HTTPS under gunicorn with its background worker, on
a SQLite file of its own, both trusting the run's test CA. The peer looks up ``@en@…`` by
WebFinger and follows it; it gets the ``Create`` of a new English note and never that of a
Chinese one, then the ``Update`` of an edit; after its ``Undo`` a new English note reaches
nobody. The author publishes and edits through the admin's own forms, so every reaction of a
real save follows (in one ``manage.py shell`` for the whole journey: Django starts once).
"""

import contextlib
import json
import os
import select
import signal
import sqlite3
import subprocess
import sys

import pytest

from tests.fediverse_peer import free_port, wait_until
from tests.processes import ROOT, gunicorn, migrate, site_env

pytestmark = pytest.mark.slow

DELIVERY_SECONDS = 20  # a bound on each round trip between the two servers, never a sleep

# Run by the author's shell once: the author, logged in to the admin, and what the test asks of
# them, each a POST of the admin's own form (tests.factories.note_form_data).
AUTHOR = """
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from blog.models import Note
from blog.models.fediverse import Follower
from tests.factories import make_staff, note_form_data

admin = Client()
admin.force_login(make_staff())

def save(url, data):
    response = admin.post(url, data, secure=True)
    assert response.status_code == 302, response.content.decode()[:3000]

def publish(title, language, body):
    now = timezone.localtime()
    save(reverse("admin:blog_note_add"), note_form_data(
        title=title, language=language, body=body, status="published",
        published_at_0=now.strftime("%Y-%m-%d"), published_at_1=now.strftime("%H:%M:%S"),
        emails_subscribers="on"))  # ticked, as a new note's form has it
    return Note.objects.latest("pk").pk

def retitle(pk, title):
    note = Note.objects.get(pk=pk)
    save(reverse("admin:blog_note_change", args=[pk]), note_form_data(
        note, title=title, **({"emails_subscribers": "on"} if note.emails_subscribers else {})))

def followers(actor):
    accepted = Follower.objects.filter(actor=actor, state="accepted")
    return sorted(accepted.values_list("remote_actor", flat=True))
"""

# The shell's loop: one line of JSON (code) in, one line out (``result`` as the code set it).
LOOP = r"""
import json, sys, traceback
namespace = {}
for line in sys.stdin:
    try:
        exec(json.loads(line), namespace)
        answer = {"result": namespace.pop("result", None)}
    except Exception:
        answer = {"error": traceback.format_exc()}
    print("\x1e" + json.dumps(answer), flush=True)
"""


class Shell:
    """``manage.py shell`` in the site's environment, kept open: :meth:`run` runs code in it."""

    def __init__(self, env, log):
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-v", "0", "-c", LOOP],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log.open("w"),
        )
        self.pending = b""

    def run(self, code, seconds=60):
        self.process.stdin.write(json.dumps(code).encode() + b"\n")
        self.process.stdin.flush()
        answer = json.loads(self._answer(seconds))
        if "error" in answer:
            raise AssertionError(f"in biji's shell:\n{answer['error']}")
        return answer["result"]

    def _answer(self, seconds):
        out = self.process.stdout.fileno()
        while b"\n" not in self.pending.partition(b"\x1e")[2]:
            ready, _, _ = select.select([out], [], [], seconds)
            chunk = os.read(out, 65536) if ready else b""
            if not chunk:
                raise AssertionError(f"biji's shell gave no answer within {seconds} s")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\x1e")[2].partition(b"\n")
        return line

    def stop(self):
        self.process.stdin.close()
        self.process.wait(10)


class Site:
    """biji on https://localhost:<port>: gunicorn (TLS by itself), a worker, the author's shell."""

    def __init__(self, folder, ca, peer):
        self.folder = folder
        self.port = free_port()
        self.url = f"https://localhost:{self.port}"
        self.database = folder / "db.sqlite3"
        self.env = site_env(
            f"sqlite:///{self.database}",
            folder / "media",
            SITE_URL=self.url,
            DJANGO_ALLOWED_HOSTS="localhost,127.0.0.1,testserver",
            DJANGO_LOG_LEVEL="WARNING",
            BIJI_FEDIVERSE="1",
            BIJI_FEDIVERSE_PRIVATE_HOSTS=peer.domain,
            SSL_CERT_FILE=str(ca.bundle),
        )
        self.ca = ca
        self.processes = []

    def start(self):
        migrate(self.env)
        tls = ["--certfile", str(self.ca.cert), "--keyfile", str(self.ca.key)]
        # Threads: an inbox POST fetches the follower's key from its server, which may ask
        # this site for its own key before it answers.
        options = [*tls, "--threads", "4"]
        log = (self.folder / "gunicorn.log").open("w")
        self.processes.append(gunicorn(self.env, self.port, options=options, stderr=log))
        self.processes.append(
            subprocess.Popen(
                [sys.executable, "manage.py", "db_worker", "--no-startup-delay"]
                + ["--interval", "0.1"],
                cwd=ROOT,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=(self.folder / "worker.log").open("w"),
            )
        )
        self.shell = Shell(self.env, self.folder / "shell.log")
        self.shell.run(AUTHOR)
        return self

    def stop(self):
        for process in self.processes:
            # gunicorn's quick shutdown (SIGINT): a graceful one (SIGTERM) waits ~5 s here.
            process.send_signal(signal.SIGINT if process is self.processes[0] else signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        with contextlib.suppress(Exception):
            self.shell.stop()

    def logs(self):
        parts = []
        for name in ("gunicorn.log", "worker.log", "shell.log"):
            text = (self.folder / name).read_text(errors="replace").strip()
            lines = "\n".join(text.splitlines()[-40:]) or "(empty)"
            parts.append(f"--- biji's {name} (end) ---\n{lines}")
        return "\n".join(parts)

    def queue_empty(self):
        """No task of the site waiting or running (read in its SQLite file)."""
        with contextlib.closing(sqlite3.connect(self.database, timeout=10)) as db:
            (waiting,) = db.execute(
                "SELECT count(*) FROM django_tasks_database_dbtaskresult "
                "WHERE status IN ('READY', 'RUNNING')"
            ).fetchone()
        return waiting == 0

    def article(self, pk):
        return f"{self.url}/ap/notes/{pk}"


@pytest.fixture
def site(tmp_path, fediverse_ca, fediverse_peer):
    site = Site(tmp_path, fediverse_ca, fediverse_peer)
    try:
        yield site.start()
    finally:
        site.stop()


def object_id(activity):
    """The id of an activity's object, whether the peer kept it embedded or by its id."""
    found = activity.get("object")
    return found.get("id") if isinstance(found, dict) else found


def test_a_fediverse_server_follows_the_english_actor_gets_its_notes_and_stops_when_it_undoes(
    site, fediverse_peer
):
    peer = fediverse_peer

    def explain():
        return f"{site.logs()}\n{peer.log_tail()}"

    def received(kind, article):
        return [
            item
            for item in peer.inbox_items()
            if item.get("type") == kind and object_id(item) == article
        ]

    def mentioned(article):
        return [item for item in peer.inbox_items() if json.dumps(article) in json.dumps(item)]

    def kept_as(article, title):
        """The peer keeps ``article`` with ``title`` (its inbox may list the activity a moment
        before its copy of the object is written)."""
        return (peer.stored(article) or {}).get("name") == title

    # The peer finds @en@localhost:<port> by WebFinger, its actor by a signed GET, and follows.
    english = peer.lookup(f"en@localhost:{site.port}")
    assert english["id"].startswith(site.url)
    assert english["preferredUsername"] == "en"
    follow = peer.follow(f"en@localhost:{site.port}")
    wait_until(
        lambda: site.shell.run("result = followers('en')") == [peer.actor["id"]],
        "the peer among the English actor's followers",
        DELIVERY_SECONDS,
        every=0.2,
        explain=explain,
    )
    wait_until(
        lambda: peer.following() == [english["id"]],
        "the peer taking biji's Accept",
        DELIVERY_SECONDS,
        explain=explain,
    )

    # A Chinese note, then an English one: the English one comes, the Chinese one never.
    chinese = site.shell.run(
        "result = publish('Warp 调度', 'zh-hans', 'GPU 的 warp scheduler 每个周期挑选一个 warp。')"
    )
    english_note = site.shell.run(
        "result = publish('Warp scheduling', 'en', 'A warp scheduler picks one warp a cycle.')"
    )
    article = site.article(english_note)
    wait_until(
        lambda: received("Create", article) and kept_as(article, "Warp scheduling"),
        "the English note's Create",
        DELIVERY_SECONDS,
        explain=explain,
    )
    stored = peer.stored(article)
    assert stored["type"] == "Article"
    assert "en" in stored["contentMap"]

    # The author edits it: the peer's copy follows.
    site.shell.run(f"retitle({english_note}, 'Warp scheduling on Hopper')")
    wait_until(
        lambda: received("Update", article) and kept_as(article, "Warp scheduling on Hopper"),
        "the English note's Update",
        DELIVERY_SECONDS,
        explain=explain,
    )

    # The peer undoes its Follow: biji forgets it, and the next English note goes nowhere.
    peer.undo_follow(follow)
    wait_until(
        lambda: site.shell.run("result = followers('en')") == [],
        "the peer gone from the English actor's followers",
        DELIVERY_SECONDS,
        every=0.2,
        explain=explain,
    )
    later = site.article(
        site.shell.run("result = publish('Tensor cores', 'en', 'Tensor cores multiply tiles.')")
    )
    wait_until(site.queue_empty, "biji's tasks all run", DELIVERY_SECONDS, explain=explain)
    assert mentioned(later) == []
    assert peer.stored(later) is None
    assert mentioned(site.article(chinese)) == []
    assert peer.stored(site.article(chinese)) is None
