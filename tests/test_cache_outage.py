"""A cache outage costs speed, not pages: with the Redis server stopped mid-test, every public
page, feed and the admin answer from the database; when it is back, the cache is used again."""

import logging

import pytest
from django.core.cache import cache
from django.test import override_settings

from blog.caching import settings_copy
from blog.caching import store as safe_cache
from blog.models import SiteSettings
from tests.redis_server import redis_caches

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")

PUBLIC = [
    "/",
    "/?page=2",
    "/en/",
    "/notes/part-2/",
    "/en/notes/beating-cublas/",
    "/tags/",
    "/tags/gpu/",
    "/series/",
    "/series/gpu-notes/",
    "/archive/",
    "/pages/about/",
    "/search/?q=调度",
    "/sitemap.xml",
    "/sitemap-notes.xml",
    "/robots.txt",
    "/notes/no-such-note/",  # the 404 page has the site's chrome too
]
FEEDS = [
    "/feed/",
    "/feed/atom/",
    "/tags/gpu/feed/",
    "/series/gpu-notes/feed/atom/",
    "/lang/en/feed/",
]
ADMIN = [
    "/admin/",
    "/admin/blog/note/",
    "/admin/blog/sitesettings/1/change/",
    "/admin/blog/tag/",
]


@pytest.fixture
def redis_cache(redis_server, monkeypatch):
    """The site on the throwaway Redis server; failures retried at once (no pause)."""
    monkeypatch.setattr(safe_cache, "RETRY_AFTER", 0.0)
    safe_cache.reset()
    with override_settings(CACHES=redis_caches(redis_server.url, prefix="biji-outage")):
        try:
            yield redis_server
        finally:
            if not redis_server.running:
                redis_server.start()  # conftest clears the cache after the test
            cache.clear()
    safe_cache.reset()


@pytest.fixture
def site(db):
    site = SiteSettings.objects.create(title="笔记 biji", tagline_en="Notes")
    site.navigation.create(label_zh="系列", label_en="Series", url="/series/")
    return site


def statuses(client, urls):
    return {url: client.get(url).status_code for url in urls}


def settings_cached(using="default"):
    return cache.get(settings_copy._key(using)) is not None


@pytest.mark.slow
def test_pages_feeds_and_admin_answer_while_the_cache_is_down(
    client, staff_client, blog, site, redis_cache, caplog
):
    everything_ok = {url: 404 if "no-such" in url else 200 for url in PUBLIC}
    assert statuses(client, PUBLIC) == everything_ok
    assert settings_cached()  # the cache is really in use

    redis_cache.stop()
    with caplog.at_level(logging.WARNING, logger="blog.caching.store"):
        assert statuses(client, PUBLIC) == everything_ok
        assert statuses(client, PUBLIC) == everything_ok
        page = client.get("/").content.decode()
        assert "笔记 biji" in page and 'href="/series/"' in page  # settings and navigation
        assert statuses(staff_client, ADMIN) == dict.fromkeys(ADMIN, 200)
        form = {
            "title": "新标题",
            "tagline_zh": "",
            "tagline_en": "Notes",
            "author": "Ada",
            "description": "",
            "footer": "",
            "navigation-TOTAL_FORMS": "1",
            "navigation-INITIAL_FORMS": "1",
            "navigation-MIN_NUM_FORMS": "0",
            "navigation-MAX_NUM_FORMS": "1000",
            "navigation-0-id": str(site.navigation.get().pk),
            "navigation-0-site": str(site.pk),
            "navigation-0-label_zh": "系列",
            "navigation-0-label_en": "Series",
            "navigation-0-url": "/series/",
            "navigation-0-position": "0",
        }
        response = staff_client.post("/admin/blog/sitesettings/1/change/", form)
        assert response.status_code == 302, response.content.decode()[:2000]
        assert "新标题" in client.get("/").content.decode()
    warnings = [r for r in caplog.records if r.name == "blog.caching.store"]
    assert warnings, "the outage is logged"
    assert len(warnings) <= 2, "at most once a minute, not once per request"

    redis_cache.start()  # back (empty: it saves nothing)
    assert statuses(client, PUBLIC) == everything_ok
    assert settings_cached(), "the cache is used again once the server is back"
    assert "新标题" in client.get("/").content.decode()


def test_feeds_answer_while_the_cache_is_down(client, blog, site, redis_cache):
    assert statuses(client, FEEDS) == dict.fromkeys(FEEDS, 200)
    redis_cache.stop()
    assert statuses(client, FEEDS) == dict.fromkeys(FEEDS, 200)
    assert "笔记 biji" in client.get("/feed/").content.decode()
    redis_cache.start()
    assert statuses(client, FEEDS) == dict.fromkeys(FEEDS, 200)


def test_a_failed_cache_is_skipped_for_a_while_then_tried_again(redis_cache, monkeypatch):
    monkeypatch.setattr(safe_cache, "RETRY_AFTER", 3600.0)
    assert safe_cache.set("k", 1, 60) and safe_cache.get("k") == 1
    redis_cache.stop()
    assert safe_cache.get("k", "miss") == "miss"
    redis_cache.start()
    assert safe_cache.get("k", "miss") == "miss"  # not tried again yet
    assert safe_cache.set("k", 2, 60) is False
    safe_cache.reset()
    assert safe_cache.set("k", 2, 60) and safe_cache.get("k") == 2


def test_sessions_are_kept_in_the_database(settings):
    # The admin's login survives a cache outage only if sessions do not live in the cache.
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"
