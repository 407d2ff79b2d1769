"""Headers, files and tokens: Permissions-Policy on every response, HSTS subdomains/preload only
when configured, the SQLite database and the development key created owner-only, media served
by Django only in development unless configured, future-dated share links refused."""

import importlib
import os
import shutil
import stat
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.test import Client
from django.urls import clear_url_caches, reverse
from django.utils import timezone

from blog.models.share_links import check_share_token, make_share_token
from tests.factories import make_draft, make_note

ROOT = Path(__file__).resolve().parent.parent


def run_python(code, env, cwd=ROOT, umask=0o022):
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "BIJI_", "SITE_URL", "REDIS_"))
    }
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.umask(umask),  # noqa: PLW1509 - the umask a shell would give
    )


def settings_values(*names, **env):
    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings');"
        "django.setup(); from django.conf import settings as s;"
        f"print(*[repr(getattr(s, n)) for n in {names!r}], sep='\\n')"
    )
    result = run_python(code, {"DJANGO_SECRET_KEY": "k", **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


# Permissions-Policy


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/en/", "/feed/", "/robots.txt", "/no-such-page/"])
def test_every_response_carries_a_permissions_policy(client, url):
    make_note(slug="a-note")
    policy = client.get(url)["Permissions-Policy"]
    for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
        assert f"{feature}=()" in policy


@pytest.mark.django_db
def test_the_admin_login_carries_a_permissions_policy(client):
    assert "camera=()" in client.get(reverse("admin:login"))["Permissions-Policy"]


# HSTS


@pytest.mark.slow
def test_https_alone_sends_hsts_without_subdomains_or_preload():
    values = settings_values(
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_HSTS_PRELOAD",
        SITE_URL="https://blog.example",
    )
    assert values == ["31536000", "False", "False"]


@pytest.mark.slow
def test_subdomains_and_preload_when_configured():
    values = settings_values(
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_HSTS_PRELOAD",
        "SILENCED_SYSTEM_CHECKS",
        SITE_URL="https://blog.example",
        DJANGO_HSTS_INCLUDE_SUBDOMAINS="1",
        DJANGO_HSTS_PRELOAD="1",
    )
    assert values == ["True", "True", "[]"]


@pytest.mark.django_db
def test_the_hsts_header_follows_the_settings(client, settings):
    settings.SECURE_HSTS_SECONDS = 3600
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = False
    settings.SECURE_HSTS_PRELOAD = False
    login = reverse("admin:login")  # never cached, so each response is made afresh
    assert client.get(login, secure=True)["Strict-Transport-Security"] == "max-age=3600"
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = settings.SECURE_HSTS_PRELOAD = True
    # SecurityMiddleware reads its settings when a client first loads the middleware.
    header = Client().get(login, secure=True)["Strict-Transport-Security"]
    assert header == "max-age=3600; includeSubDomains; preload"


# Files created owner-only


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_the_development_key_and_the_sqlite_database_are_created_owner_only(tmp_path):
    # A copy of the project's settings in a fresh folder: its var/ does not exist yet.
    # The whole package: an installed biji is found before a bare folder named config.
    shutil.copytree(
        ROOT / "config", tmp_path / "config", ignore=shutil.ignore_patterns("__pycache__")
    )
    code = (
        "import runpy, sqlite3;"
        "s = runpy.run_path('config/settings.py');"
        "db = sqlite3.connect(s['DATABASES']['default']['NAME']);"
        "db.execute('PRAGMA journal_mode=WAL'); db.execute('create table t (x)'); db.commit();"
        "import os, stat; print(oct(stat.S_IMODE(os.stat('var/db.sqlite3-wal').st_mode)))"
    )
    result = run_python(code, {"DJANGO_DEBUG": "1", "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    var = tmp_path / "var"
    assert mode(var / "dev-secret-key") == 0o600
    assert len((var / "dev-secret-key").read_text().strip()) > 40
    assert mode(var / "db.sqlite3") == 0o600
    assert result.stdout.split() == ["0o600"]  # the WAL file: SQLite gives it the db's mode
    assert mode(var) == 0o700


def test_an_existing_key_is_kept(tmp_path):
    (tmp_path / "config").mkdir()
    shutil.copy(ROOT / "config" / "settings.py", tmp_path / "config" / "settings.py")
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "dev-secret-key").write_text("kept-key\n")
    code = "import runpy; print(runpy.run_path('config/settings.py')['SECRET_KEY'])"
    result = run_python(code, {"DJANGO_DEBUG": "1"}, cwd=tmp_path)
    assert result.stdout.strip() == "kept-key", result.stderr


# Media


@pytest.mark.slow
def test_media_is_served_by_django_in_development_only_unless_configured():
    assert settings_values("BIJI_SERVE_MEDIA") == ["False"]
    assert settings_values("BIJI_SERVE_MEDIA", DJANGO_DEBUG="1") == ["True"]
    assert settings_values("BIJI_SERVE_MEDIA", BIJI_SERVE_MEDIA="1") == ["True"]
    assert settings_values("BIJI_SERVE_MEDIA", DJANGO_DEBUG="1", BIJI_SERVE_MEDIA="0") == ["False"]


@pytest.fixture
def reload_urls(settings):
    """Re-import config.urls under the test's settings, and again afterwards."""
    import config.urls

    def reload():
        importlib.reload(config.urls)
        clear_url_caches()

    yield reload
    settings.BIJI_SERVE_MEDIA = False
    reload()


@pytest.mark.django_db
@pytest.mark.parametrize("serve", [False, True])
def test_the_media_route_exists_only_when_serving(client, settings, reload_urls, serve):
    media = Path(settings.MEDIA_ROOT) / "uploads"
    media.mkdir(parents=True)
    (media / "x.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    settings.BIJI_SERVE_MEDIA = serve
    reload_urls()
    assert client.get("/media/uploads/x.png").status_code == (200 if serve else 404)


# Share links dated in the future


@pytest.mark.django_db
def test_a_share_link_signed_by_a_clock_ahead_is_refused(client):
    note = make_draft(slug="wip")
    with time_machine.travel(timezone.now() + timedelta(days=3)):
        ahead = make_share_token(note)
    assert not check_share_token(note, ahead)
    url = reverse("blog:note-share", kwargs={"slug": "wip", "token": ahead})
    assert client.get(url).status_code == 404


@pytest.mark.django_db
def test_a_small_clock_difference_is_tolerated_and_expiry_still_applies(settings):
    note = make_draft(slug="wip")
    with time_machine.travel(time.time() + 30):
        slightly_ahead = make_share_token(note)
    assert check_share_token(note, slightly_ahead)
    with time_machine.travel(time.time() - settings.BIJI_PREVIEW_MAX_AGE - 60):
        old = make_share_token(note)
    assert not check_share_token(note, old)
    assert check_share_token(note, make_share_token(note))
    assert not check_share_token(note, "not-a-token")
