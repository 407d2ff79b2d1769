"""The admin's address is configurable (BIJI_ADMIN_PATH, default ``admin/``): the admin, the
editor's endpoints, the markdownx widget's upload URL, the admin's language rule and robots.txt
all follow it."""

import importlib

import pytest
from django.urls import clear_url_caches, reverse

from tests.test_security_headers import run_python, settings_values

pytestmark = pytest.mark.django_db

CUSTOM = "desk-7f3a/"


@pytest.mark.slow
def test_the_default_is_admin():
    assert settings_values("BIJI_ADMIN_PATH", "MARKDOWNX_UPLOAD_URLS_PATH") == [
        "'admin/'",
        "'/admin/editor/upload/'",
    ]


@pytest.mark.parametrize("value", ["desk-7f3a", "/desk-7f3a/", "desk-7f3a/"])
@pytest.mark.slow
def test_the_environment_variable_sets_every_derived_path(value):
    assert settings_values(
        "BIJI_ADMIN_PATH",
        "MARKDOWNX_UPLOAD_URLS_PATH",
        BIJI_ADMIN_PATH=value,
    ) == ["'desk-7f3a/'", "'/desk-7f3a/editor/upload/'"]


@pytest.mark.parametrize("value", ["en", "static", "a b", "../x", "x/./y", "<x>", "/"])
def test_a_path_that_cannot_work_is_refused_at_start(value):
    code = "import django; django.setup()"
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": "k",
        "BIJI_ADMIN_PATH": value,
    }
    result = run_python(code, env)
    assert result.returncode != 0
    assert "BIJI_ADMIN_PATH" in result.stderr


@pytest.fixture
def custom_admin(settings):
    import config.urls

    def reload():
        importlib.reload(config.urls)
        clear_url_caches()

    settings.BIJI_ADMIN_PATH = CUSTOM
    settings.MARKDOWNX_UPLOAD_URLS_PATH = f"/{CUSTOM}editor/upload/"
    reload()
    yield
    settings.BIJI_ADMIN_PATH = "admin/"
    reload()


def test_the_admin_moves(client, custom_admin):
    assert reverse("admin:index") == f"/{CUSTOM}"
    assert client.get(f"/{CUSTOM}login/").status_code == 200
    assert client.get("/admin/login/").status_code == 404
    response = client.get(f"/{CUSTOM}")
    assert response.status_code == 302
    assert response["Location"].startswith(f"/{CUSTOM}login/")


def test_the_editor_endpoints_move_with_it(client, staff_client, custom_admin):
    assert reverse("editor:upload") == f"/{CUSTOM}editor/upload/"
    assert staff_client.post(f"/{CUSTOM}editor/upload/").status_code == 400  # no file, but there
    assert staff_client.post("/admin/editor/upload/").status_code == 404
    preview = reverse("admin:blog_note_editor_preview")
    assert preview == f"/{CUSTOM}blog/note/editor/preview/"
    assert staff_client.post(preview, {"content": "# hi"}).status_code == 200


@pytest.mark.slow
def test_the_markdown_widget_posts_to_the_moved_endpoints():
    # django-markdownx reads its paths once, when imported: hence a fresh process.
    code = (
        "import django; django.setup(); from markdownx import settings as m;"
        "print(m.MARKDOWNX_UPLOAD_URLS_PATH)"
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_SECRET_KEY": "k"}
    result = run_python(code, {**env, "BIJI_ADMIN_PATH": CUSTOM})
    assert result.stdout.split() == [f"/{CUSTOM}editor/upload/"]


def test_the_admin_follows_the_authors_language_at_its_new_path(client, custom_admin):
    response = client.get(f"/{CUSTOM}login/", headers={"accept-language": "en"})
    assert response["Content-Language"] == "en"
    assert "Accept-Language" in response["Vary"]


def test_robots_txt_does_not_give_a_custom_path_away(client, custom_admin):
    text = client.get("/robots.txt").content.decode()
    assert "desk" not in text
    assert "Disallow: /admin/" not in text


def test_robots_txt_names_the_default_admin(client):
    assert "Disallow: /admin/" in client.get("/robots.txt").content.decode()
