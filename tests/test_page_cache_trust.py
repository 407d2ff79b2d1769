"""No stranger can fill the page cache or step past it, and it answers only the hosts the site
serves (issue 17, items 4, 5 and 9).

- Only a page's canonical URL is stored: the query its view reads, naming a page that exists
  (300 made-up URLs added 38 MB to a Redis before).
- Only the author steps past the cache: a made-up session cookie (``Cookie: sessionid=x``
  dropped ``/feed/`` from 1,118 to 37 requests/s) gets the cached page; the author, logged in
  through the admin's login page, never does.
- A host outside ALLOWED_HOSTS gets 400, from a cached page or a 304 too.

Committed data (``transaction=True``), as in tests/test_page_cache.py. The tests marked
``shared_redis`` run on the real Redis server at REDIS_URL (``make test`` sets it for the
PostgreSQL run), within the test session's own key prefix (tests/conftest.py).
"""

import os

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client
from django.urls import reverse

from blog.caching import author
from blog.caching import pages as page_cache
from blog.models import SiteSettings
from tests.factories import make_draft, make_note, make_staff, make_tag

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = page_cache.HEADER
PASSWORD = "correct horse battery staple"


@pytest.fixture
def content(db):
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    gpu = make_tag("GPU", "图形处理器")
    notes = [make_note(title=f"第 {n} 篇", slug=f"note-{n}", tags=[gpu]) for n in range(12)]
    return {"note": notes[0], "year": notes[0].published_at.year}


@pytest.fixture
def shared_redis():
    """Keys under the session's prefix on the Redis server at REDIS_URL."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set (make test sets it for the PostgreSQL run)")
    backend = caches["default"]
    assert isinstance(backend, RedisCache), "REDIS_URL is set: the cache is Redis"
    server = backend._cache.get_client(write=True)
    return lambda: set(server.scan_iter(match=f"{backend.key_prefix}:*", count=1000))


def served_from_cache(client, url, **headers):
    return client.get(url, **headers).get(HEADER) == "hit"


def warm(url):
    reader = Client()
    reader.get(url)
    assert served_from_cache(reader, url), url


def log_in_on_the_admin(client, user):
    response = client.post(
        reverse("admin:login"),
        {"username": user.username, "password": PASSWORD, "next": reverse("admin:index")},
    )
    assert response.status_code == 302, response.content.decode()[:500]
    return response


# Item 4: only canonical URLs are stored.


def junk_urls(year):
    """URLs that answer 200 but name no page of their own: queries views ignore, page numbers
    that do not exist or are spelt another way, and paths the int converter also takes."""
    return [
        "/?page=99",  # past the last page (2): the last page is shown
        "/?page=abc",  # not a number: the first page
        "/?page=02",
        "/?page=2&page=2",
        "/?page=%32",
        "/?page=last",
        "/?utm_source=mail",
        "/feed/?page=2",  # feeds and notes read no query at all
        "/feed/atom/?page=1",
        "/notes/note-1/?page=2",
        "/tags/?page=2",
        "/tags/gpu/?page=3",
        f"/archive/0{year}/",
        f"/archive/{year}/?page=2",
        "/en/?page=7",
        "/sitemap-notes.xml?p=01",
    ]


def test_urls_that_name_no_page_of_their_own_are_never_stored(client, content):
    for url in junk_urls(content["year"]):
        first = client.get(url)
        assert first.status_code == 200, url
        assert not served_from_cache(client, url), url


def test_page_numbers_that_name_no_page_are_kept_by_no_shared_cache(client, content):
    for url in ("/?page=99", "/?page=abc", "/?page=02", "/tags/gpu/?page=0"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "private" in response["Cache-Control"] and "public" not in response["Cache-Control"]


def test_the_pages_a_list_has_are_stored(client, content):
    for url in ("/", "/?page=1", "/?page=2", "/tags/gpu/", "/tags/gpu/?page=2", "/feed/"):
        warm(url)
    assert "public" in client.get("/?page=2")["Cache-Control"]


@pytest.mark.slow
def test_300_made_up_urls_add_no_entry_to_redis(content, shared_redis):
    reader = Client()
    year = content["year"]
    # What readers fetch anyway: every list, note and feed the made-up URLs are spellings of.
    real = ["/", "/en/", "/?page=2", "/tags/", "/tags/gpu/", "/feed/", "/feed/atom/"]
    real += ["/notes/note-1/", f"/archive/{year}/", "/sitemap-notes.xml"]
    for url in real:
        warm(url)
    before = shared_redis()
    assert any(b":page:" in key for key in before), "the pages are in Redis"

    made_up = []
    for n in range(300):
        made_up.append(
            [
                f"/?page={100 + n}",
                f"/feed/?page={n}",
                f"/notes/note-1/?page={n}",
                f"/?utm_source={n}",
                f"/archive/{'0' * (1 + n % 7)}{year}/",
                f"/?page=0{2 + n % 2}",
            ][n % 6]
        )
    for url in made_up:
        assert reader.get(url).status_code == 200, url
    assert shared_redis() == before


# Item 5: only the author steps past the cache.


def test_a_made_up_session_cookie_gets_the_cached_page(content):
    for url in ("/feed/", "/notes/note-1/", "/"):
        warm(url)
        for cookie in ("sessionid=x", "sessionid=" + "a" * 32):
            assert served_from_cache(Client(), url, HTTP_COOKIE=cookie), (url, cookie)


def test_a_made_up_author_cookie_gets_the_cached_page(content):
    warm("/feed/")
    forged = [
        "biji_author=1",
        f"sessionid=x; {author.COOKIE}=x:1abc:forged",
        # A genuine marker, but for another session than the cookie sent with it.
        f"sessionid={'b' * 32}; {author.COOKIE}={author.signed_marker('c' * 32)}",
    ]
    for cookie in forged:
        assert served_from_cache(Client(), "/feed/", HTTP_COOKIE=cookie), cookie


def test_a_made_up_authorization_header_gets_the_cached_page(content):
    warm("/feed/")
    assert served_from_cache(Client(), "/feed/", HTTP_AUTHORIZATION="Basic eDp4")


def test_the_logged_in_author_never_gets_a_cached_page(client, content):
    user = make_staff("author", PASSWORD)
    for url in ("/feed/", "/notes/note-1/"):
        warm(url)
    login = log_in_on_the_admin(client, user)
    assert author.COOKIE in login.cookies and login.cookies[author.COOKIE]["httponly"]
    for url in ("/feed/", "/notes/note-1/", "/feed/", "/notes/note-1/"):
        response = client.get(url)
        assert response.status_code == 200 and not response.has_header(HEADER), url
    make_draft(title="草稿：给作者看的", slug="wip")
    assert "给作者看的" in client.get("/notes/wip/").content.decode()

    client.post(reverse("admin:logout"))
    assert client.cookies[author.COOKIE].value == ""  # removed at logout
    warm("/feed/")  # again: the draft moved the version
    assert served_from_cache(client, "/feed/")


def test_an_authors_session_from_before_the_marker_gets_it_on_the_admin(client, content):
    client.force_login(make_staff("author", PASSWORD))  # a session cookie, no marker yet
    warm("/feed/")
    assert served_from_cache(client, "/feed/")  # a session cookie alone is anybody's
    assert client.get(reverse("admin:index")).status_code == 200
    assert client.cookies[author.COOKIE].value
    assert not client.get("/feed/").has_header(HEADER)


def test_what_the_author_sees_is_never_stored_for_readers(client, content):
    log_in_on_the_admin(client, make_staff("author", PASSWORD))
    make_draft(title="草稿：未完成", slug="wip")
    for _ in range(2):
        assert client.get("/notes/wip/").status_code == 200
    reader = Client()
    assert reader.get("/notes/wip/").status_code == 404
    assert reader.get("/notes/wip/").status_code == 404


def test_on_redis_a_made_up_cookie_is_served_from_the_cache_and_the_author_is_not(
    client, content, shared_redis
):
    warm("/feed/")
    assert any(b":page:" in key for key in shared_redis())
    assert served_from_cache(Client(), "/feed/", HTTP_COOKIE="sessionid=x")
    log_in_on_the_admin(client, make_staff("author", PASSWORD))
    assert not client.get("/feed/").has_header(HEADER)


# Item 9: ALLOWED_HOSTS holds on every path.


def test_a_host_the_site_does_not_serve_gets_400_from_a_cached_page_and_a_304(client, content):
    url = "/notes/note-1/"
    warm(url)
    etag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert client.get(url, HTTP_HOST="evil.example").status_code == 400
    assert client.get(url, HTTP_HOST="evil.example", HTTP_IF_NONE_MATCH=etag).status_code == 400
    assert client.get("/tags/", HTTP_HOST="evil.example").status_code == 400  # not cached yet
    assert client.get(url).status_code == 200
