"""Every public page costs at most six SQL queries, however much content the blog holds.

Rendered for the first time, that is the content state, the view's queries (at most four) and
the versions of the parts the page showed (blog.caching.parts), read after it rendered; a page
rendered again after an edit reads them with the state, before.
"""

import pytest
from django.urls import reverse

from blog.caching import site_settings
from tests.factories import make_page
from tests.site_data import bulk_blog

BUDGET = 6


@pytest.fixture
def big_blog(db):
    data = bulk_blog(notes=200, tags=50)
    data["page"] = make_page(title="About", slug="about")
    site_settings()  # warm: the settings come from the cache, as they do in production
    return data


def _urls(data):
    note = data["notes"][1]  # in the series, translated, tagged, with related notes
    month = note.published_at
    return [
        reverse("blog:home"),
        reverse("blog:home") + "?page=2",
        "/en/",
        reverse("blog:note-detail", kwargs={"slug": note.slug}),
        reverse("blog:tag-list"),
        reverse("blog:tag-detail", kwargs={"slug": data["tags"][0].slug}),
        reverse("blog:series-list"),
        reverse("blog:series-detail", kwargs={"slug": data["series"].slug}),
        reverse("blog:archive"),
        reverse("blog:archive-year", kwargs={"year": month.year}),
        reverse("blog:archive-month", kwargs={"year": month.year, "month": month.month}),
        reverse("blog:page-detail", kwargs={"slug": "about"}),
        "/notes/no-such-note/",
        "/archive/2999/13/",
    ]


def test_every_public_page_within_budget(client, big_blog, django_assert_max_num_queries):
    for url in _urls(big_blog):
        with django_assert_max_num_queries(BUDGET, info=url):
            response = client.get(url)
        assert response.status_code in (200, 404), url


def test_note_detail_shows_everything_it_counts(client, big_blog):
    """The budgeted note page really has its series box, translation, tags and related."""
    note = big_blog["notes"][1]
    html = client.get(reverse("blog:note-detail", kwargs={"slug": note.slug})).content.decode()
    assert 'class="series-box"' in html
    assert 'class="translation-link"' in html
    assert 'rel="tag"' in html
    assert 'class="related"' in html


def test_list_pages_do_not_grow_with_page_size(client, big_blog, django_assert_num_queries):
    """Home: the content version (shared by the validators and the site settings), a count,
    one page of notes with their series, their tags in one query, and the versions of the
    parts the page showed."""
    with django_assert_num_queries(5):
        client.get(reverse("blog:home"))
