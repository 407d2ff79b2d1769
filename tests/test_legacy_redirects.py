"""Old URLs keep working: a 404 at a path an import recorded redirects to the note or page."""

import pytest

from blog.models import LegacyPath
from tests.factories import make_draft, make_note, make_page

pytestmark = pytest.mark.django_db

MIDDLEWARE = "blog.public.legacy_redirects.LegacyRedirectMiddleware"


@pytest.fixture(autouse=True)
def redirects(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, MIDDLEWARE]


def test_old_permalink_redirects_permanently_to_the_note(client):
    note = make_note(slug="flashattention-tiling")
    LegacyPath.objects.create(path="/2025/08/17/flashattention/", note=note)
    response = client.get("/2025/08/17/flashattention/")
    assert response.status_code == 301
    assert response["Location"] == "/notes/flashattention-tiling/"
    assert client.get("/2025/08/17/flashattention").status_code == 301  # slash or not


def test_old_page_path_redirects_to_the_page(client):
    page = make_page(title="About", slug="about")
    LegacyPath.objects.create(path="/about-me.html", page=page)
    assert client.get("/about-me.html")["Location"] == "/pages/about/"


def test_drafts_unknown_paths_and_live_pages_are_left_alone(client):
    LegacyPath.objects.create(path="/old/draft/", note=make_draft(slug="secret"))
    assert client.get("/old/draft/").status_code == 404  # never reveals a draft's slug
    assert client.get("/no/such/path/").status_code == 404
    note = make_note(slug="live")
    LegacyPath.objects.create(path=note.get_absolute_url().rstrip("/"), note=note)
    assert client.get(note.get_absolute_url()).status_code == 200
