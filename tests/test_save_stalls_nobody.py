"""A slow save stalls no other writer: gunicorn, SQLite, an add-only author and a reader.

The admin renders a posted body before its write transaction opens
(blog/authoring/render_ahead.py), so while an author's save spends its render bound on a
pathological body, a reader subscribing on the other worker writes at once. Here the bound is
raised to 3 s of CPU so that the difference shows: the subscription must be answered well
before the save is.
"""

import http.cookiejar
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests import processes
from tests.processes import BIN, ROOT, manage, migrate
from tests.redis_server import free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (BIN / "gunicorn").exists(), reason="gunicorn is not installed"),
]

RENDER_SECONDS = 3
TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')

AUTHOR = """
from django.contrib.auth.models import Permission, User
user = User.objects.create_user("lin", password="a long password for lin", is_staff=True)
user.user_permissions.add(*Permission.objects.filter(codename__in=["add_note", "view_note"]))
"""


@pytest.fixture
def server(tmp_path):
    import subprocess

    env = processes.site_env(
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        tmp_path / "media",
        BIJI_RENDER_SECONDS=str(RENDER_SECONDS),
        BIJI_RENDER_WALL_SECONDS="30",
    )
    migrate(env)
    manage(env, "shell", "-c", AUTHOR)
    port = free_port()
    process = subprocess.Popen(
        [BIN / "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
        + ["--workers", "2", "--timeout", "60", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{base}/en/subscribe/", timeout=5).read()  # noqa: S310
            break
        except OSError:
            if time.monotonic() > deadline:
                process.terminate()
                raise
            time.sleep(0.1)
    yield base
    process.terminate()
    process.wait(timeout=10)


def browser():
    return urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )


def post_form(opener, url, fields, referer):
    page = opener.open(url, timeout=30).read()  # our own server on 127.0.0.1
    data = {"csrfmiddlewaretoken": TOKEN.search(page)[1].decode(), **fields}
    request = urllib.request.Request(  # noqa: S310 (our own server on 127.0.0.1)
        url, data=urllib.parse.urlencode(data).encode(), headers={"Referer": referer}
    )
    try:
        with opener.open(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_reader_subscribing_during_a_slow_save_is_answered_at_once(server):
    author = browser()
    login = f"{server}/admin/login/?next=/admin/"
    post_form(author, login, {"username": "lin", "password": "a long password for lin"}, login)
    add = f"{server}/admin/blog/note/add/"
    fields = {
        "title": "Brackets",
        "slug": "",
        "language": "en",
        "body": "[" * 60_000,
        "summary": "",
        "tags": "",
        "status": "draft",
        "published_at_0": "",
        "published_at_1": "",
        "series": "",
        "series_position": "",
        "translation": "",
        "source_title": "",
        "source_author": "",
        "source_url": "",
        "source_date": "",
        "cover_alt": "",
        "edit_version": "",
    }
    saved = {}

    def save():
        saved["status"], saved["page"] = post_form(author, add, fields, add)
        saved["ended"] = time.monotonic()

    saving = threading.Thread(target=save)
    saving.start()
    time.sleep(1)  # the save is rendering now (its bound is 3 s)

    start = time.monotonic()
    reader = urllib.request.Request(  # noqa: S310 (our own server on 127.0.0.1)
        f"{server}/en/subscribe/",
        data=urllib.parse.urlencode({"email": "reader@example.com", "wants": "en"}).encode(),
    )
    with urllib.request.urlopen(reader, timeout=60) as response:  # noqa: S310
        assert response.status == 200
    subscribed = time.monotonic() - start
    answered = time.monotonic()
    saving.join(timeout=60)

    assert saved["status"] == 200  # the form again, with the reason: never a 500
    assert "未能在 3 秒".encode() in saved["page"]  # the admin speaks Chinese by default
    # The reader is answered while the save still spends its bound (3 s of CPU, however long
    # a loaded machine takes to give it that), not after it.
    assert answered < saved["ended"]
    assert subscribed < 2, f"the subscription waited {subscribed:.1f} s for the author's save"
