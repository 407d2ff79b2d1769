"""Public pages carry one shared Cache-Control policy and never vary on the cookie; staff
previews and share links are never cached."""

import pytest

from blog.models.share_links import make_share_token
from tests.factories import make_draft

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")

PUBLIC = [
    "/",
    "/en/",
    "/notes/part-1/",
    "/tags/",
    "/tags/gpu/",
    "/series/",
    "/series/gpu-notes/",
    "/archive/",
    "/pages/about/",
]


@pytest.mark.parametrize("url", PUBLIC)
def test_public_pages_share_one_policy(client, blog, settings, url):
    settings.BIJI_PAGE_MAX_AGE = 123
    settings.BIJI_PAGE_SHARED_MAX_AGE = 456
    response = client.get(url)
    assert response.status_code == 200
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert directives == {"public", "max-age=123", "s-maxage=456"}
    assert "Cookie" not in response.get("Vary", "")
    assert not response.cookies


def test_archive_pages_too(client, blog):
    when = blog["parts"][0].published_at
    for url in (f"/archive/{when.year}/", f"/archive/{when.year}/{when.month}/"):
        assert "public" in client.get(url)["Cache-Control"]


@pytest.mark.parametrize("url", PUBLIC[:3])
def test_public_pages_answer_conditional_requests(client, blog, url):
    first = client.get(url)
    assert first.has_header("ETag")
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_staff_previews_are_never_cached(staff_client, db):
    make_draft(slug="wip")
    response = staff_client.get("/notes/wip/")
    assert response.status_code == 200
    cache_control = response["Cache-Control"]
    assert "private" in cache_control and "no-store" in cache_control
    assert "public" not in cache_control


def test_share_links_are_never_cached(client, db):
    note = make_draft(slug="wip")
    response = client.get(f"/notes/wip/share/{make_share_token(note)}/")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] and "public" not in response["Cache-Control"]


def test_404_is_not_cached_as_public(client, db):
    response = client.get("/notes/nothing-here/")
    assert response.status_code == 404
    assert "public" not in response.get("Cache-Control", "")


def test_robots_txt_is_cacheable(client, db):
    assert "public" in client.get("/robots.txt")["Cache-Control"]
