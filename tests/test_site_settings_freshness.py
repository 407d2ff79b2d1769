"""Every worker sees an edit of the site settings at once, even with the per-worker
local-memory cache: two server processes on one database, the edit made by a third."""

import time
import urllib.request

import pytest

from tests import processes
from tests.processes import BIN, gunicorn, manage, migrate
from tests.redis_server import free_port


@pytest.fixture
def site_env(tmp_path):
    return processes.site_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "media")


def shell(env, code):
    manage(env, "shell", "-c", code)


def serve(env):
    port = free_port()
    process = gunicorn(env, port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            fetch(port)
            return process, port
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise RuntimeError("gunicorn did not start")


def fetch(port, path="/"):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return response.read().decode()


@pytest.mark.skipif(not (BIN / "gunicorn").exists(), reason="gunicorn is not installed")
@pytest.mark.slow
def test_two_workers_see_an_edit_at_once(site_env):
    migrate(site_env)
    shell(
        site_env,
        "from blog.models import SiteSettings; SiteSettings.objects.create(title='Old title')",
    )
    servers = []
    try:
        servers = [serve(site_env) for _ in range(2)]
        ports = [port for _process, port in servers]
        for _ in range(3):  # each worker has its copy now
            assert all("Old title" in fetch(port) for port in ports)

        shell(
            site_env,
            "from blog.models import SiteSettings; s = SiteSettings.objects.get(); "
            "s.title = 'New title'; s.save(); "
            "s.navigation.create(label_zh='关于', label_en='About', url='/pages/about/')",
        )
        pages = [fetch(port, path) for _ in range(6) for port in ports for path in ("/", "/en/")]
        assert sum("New title" in page for page in pages) == len(pages)
        assert all("Old title" not in page for page in pages)
        assert all('pages/about/">' in page for page in pages)  # the new link
    finally:
        for process, _port in servers:
            process.terminate()
            process.wait(timeout=10)
