"""Choosing a series in the note form proposes the next free position in the note's language,
proposed again when the language changes; a number the author typed is kept.

Nothing here saves a note: the demo data stays as the other browser tests expect it.
"""

from functools import partial

import pytest
from django.db.models import Max
from playwright.sync_api import expect

from blog.models import Language, Note, Series
from tests.browser.admin_session import author_session_cookie, open_as_author

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def author_cookie(demo):
    return author_session_cookie(demo)


@pytest.fixture
def author_page(open_page, author_cookie):
    return partial(open_as_author, open_page, author_cookie)


def next_free(series, language):
    last = Note.objects.filter(series=series, language=language).aggregate(
        last=Max("series_position")
    )["last"]
    return str((last or 0) + 1)


def choose_series(page, title):
    """Through select2, as the author does: open the picker, type, pick the result."""
    page.locator(".field-series .select2-selection").click()
    page.locator(".select2-search__field").fill(title)
    page.locator(".select2-results__option", has_text=title).first.click()


def test_choosing_a_series_proposes_the_next_free_position(author_page):
    series = Series.objects.filter(notes__language=Language.CHINESE).distinct().first()
    other = Series.objects.exclude(pk=series.pk).first()
    page = author_page()
    page.goto("/admin/blog/note/add/")
    position = page.locator("input[name=series_position]")
    expect(position).to_have_value("")

    choose_series(page, series.title_zh)
    expect(position).to_have_value(next_free(series, Language.CHINESE))
    page.locator("select[name=language]").select_option(Language.ENGLISH)
    expect(position).to_have_value(next_free(series, Language.ENGLISH))
    choose_series(page, other.title_zh)
    expect(position).to_have_value(next_free(other, Language.ENGLISH))

    # The author's own number stays whatever series they pick next.
    position.fill("42")
    choose_series(page, series.title_zh)
    page.wait_for_timeout(500)  # time for a proposal that must not come
    expect(position).to_have_value("42")
    assert page.problems == [] or all("Failed to load resource" in p for p in page.problems)
