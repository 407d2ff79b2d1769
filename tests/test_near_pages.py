"""With Redis, each worker also keeps the pages it served last in its own memory
(blog/caching/near.py): a popular page is served without a round trip to Redis, and still
never older than the content, since a copy is checked against the database like any kept page.

Run against a Redis server of the test's own (tests/redis_server.py), whatever the suite's
cache: the embedded cache is already each worker's memory, and keeps no second copy.
"""

import pytest
from django.test import override_settings

from blog.caching import near, store
from blog.caching.pages import HEADER
from blog.models import SiteSettings
from tests.factories import make_note
from tests.redis_server import redis_caches

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared_cache(redis_server):
    """The site on a throwaway Redis server; each worker's copies start empty."""
    near.clear()
    with override_settings(CACHES=redis_caches(redis_server.url, prefix="biji-near")):
        yield redis_server
    near.clear()


@pytest.fixture
def note(db):
    SiteSettings.objects.create(title="笔记 biji")
    return make_note(title="调度笔记", slug="scheduling", body="First version.")


@pytest.fixture
def redis_reads(monkeypatch):
    """The keys read from the shared cache, in order."""
    keys = []
    read = store.get

    def counted(key, *args, **kwargs):
        keys.append(key)
        return read(key, *args, **kwargs)

    monkeypatch.setattr(store, "get", counted)
    return keys


def page_reads(keys):
    return [key for key in keys if key.startswith("page:")]


@pytest.fixture
def rewrite(note, django_capture_on_commit_callbacks):
    """``rewrite(body)`` saves the note with a new body and commits, as the admin does: the
    content version moves after it."""

    def rewrite(body):
        with django_capture_on_commit_callbacks(execute=True):
            note.body = body
            note.save()

    return rewrite


def rendered_again(client, url):
    """The page's text, asserting it was rendered for this request rather than kept."""
    response = client.get(url)
    assert response[HEADER] == "miss"
    return response.content.decode()


def test_a_page_served_again_is_not_read_from_redis(client, shared_cache, note, redis_reads):
    url = note.get_absolute_url()
    assert client.get(url)[HEADER] == "miss"
    redis_reads.clear()
    for _ in range(3):
        response = client.get(url)
        assert response[HEADER] == "hit"
        assert "First version." in response.content.decode()
    assert page_reads(redis_reads) == []


def test_an_edit_shows_at_once(client, shared_cache, note, rewrite):
    url = note.get_absolute_url()
    client.get(url)
    assert client.get(url)[HEADER] == "hit"
    rewrite("Second version.")
    assert "Second version." in rendered_again(client, url)
    assert client.get(url)[HEADER] == "hit"


def test_a_page_another_worker_rendered_again_is_taken_from_redis(
    client, shared_cache, note, rewrite
):
    """This worker's copy is older than the edit; another worker already rendered the page
    again and put it in Redis: this worker serves that one instead of rendering it too."""
    url = note.get_absolute_url()
    client.get(url)
    [(key, mine)] = [(key, near.get(key)) for key in list(near._copies)]
    rewrite("Second version.")
    near.clear()  # "another worker": no copy of its own
    assert "Second version." in rendered_again(client, url)  # it renders it, puts it in Redis
    near.put(key, mine, 60)  # back to this worker, which still holds the old copy
    response = client.get(url)
    assert response[HEADER] == "hit"
    assert "Second version." in response.content.decode()
    assert near.get(key).etag != mine.etag  # and the copy it holds now is the new one


def test_a_worker_keeps_at_most_its_bound(client, shared_cache, note, settings):
    settings.BIJI_NEAR_PAGES = 2
    for url in ["/", "/en/", note.get_absolute_url()]:
        client.get(url)
    assert len(near._copies) == 2


def test_the_embedded_cache_keeps_no_second_copy(client, note, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    near.clear()
    client.get(note.get_absolute_url())
    assert client.get(note.get_absolute_url())[HEADER] == "hit"
    assert near.bound() == 0
    assert len(near._copies) == 0


def test_a_copy_is_served_while_redis_is_down_only_if_current(client, shared_cache, note, rewrite):
    """An outage costs speed, not freshness: the worker's copy is still checked against the
    database, so an edit made during the outage shows at once."""
    url = note.get_absolute_url()
    client.get(url)
    shared_cache.stop()
    store.reset()
    assert client.get(url)[HEADER] == "hit"
    rewrite("Written while Redis was down.")
    assert "Written while Redis was down." in rendered_again(client, url)


def test_nothing_is_kept_while_redis_is_down(client, shared_cache, note):
    """The copies mirror Redis: a page first asked for during an outage renders every time."""
    shared_cache.stop()
    store.reset()
    for _ in range(2):
        assert client.get(note.get_absolute_url())[HEADER] == "miss"
    assert len(near._copies) == 0
