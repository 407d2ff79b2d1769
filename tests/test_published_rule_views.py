"""Drafts and scheduled notes never reach the public: not at their URL, not in any list,
count, archive, sitemap, series navigation or related-notes box."""

from datetime import timedelta

import pytest
from django.urls import reverse

from tests.factories import make_draft, make_note, make_scheduled, make_series, make_tag

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


@pytest.fixture
def hidden(db):
    tag = make_tag("Secret", "秘密")
    series = make_series(title_en="Mixed", title_zh="混合", slug="mixed")
    public = make_note(
        title="Public part", slug="public-part", tags=[tag], series=series, series_position=1
    )
    draft = make_draft(
        title="Draft part", slug="draft-part", tags=[tag], series=series, series_position=2
    )
    scheduled = make_scheduled(
        title="Scheduled part",
        slug="scheduled-part",
        tags=[tag],
        series=series,
        series_position=3,
    )
    return {"tag": tag, "series": series, "public": public, "draft": draft, "scheduled": scheduled}


HIDDEN_TITLES = ("Draft part", "Scheduled part")


@pytest.mark.parametrize("slug", ["draft-part", "scheduled-part"])
def test_unpublished_note_is_404_for_anonymous(client, hidden, slug):
    assert client.get(reverse("blog:note-detail", kwargs={"slug": slug})).status_code == 404


def test_unpublished_note_is_404_for_staff_without_note_permissions(client, hidden):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(user)
    assert client.get(reverse("blog:note-detail", kwargs={"slug": "draft-part"})).status_code == 404


def _pages(hidden):
    published = hidden["public"].published_at
    return [
        reverse("blog:home"),
        "/en/",
        reverse("blog:tag-list"),
        reverse("blog:tag-detail", kwargs={"slug": hidden["tag"].slug}),
        reverse("blog:series-list"),
        reverse("blog:series-detail", kwargs={"slug": "mixed"}),
        reverse("blog:archive"),
        reverse("blog:archive-year", kwargs={"year": published.year}),
        reverse("blog:archive-month", kwargs={"year": published.year, "month": published.month}),
        reverse("blog:note-detail", kwargs={"slug": "public-part"}),
        "/sitemap.xml",
        "/sitemap-notes.xml",
        "/sitemap-tags.xml",
        "/sitemap-series.xml",
    ]


def test_unpublished_notes_appear_on_no_public_page(client, hidden):
    for url in _pages(hidden):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        for title in HIDDEN_TITLES:
            assert title not in html, (url, title)
        assert "draft-part" not in html and "scheduled-part" not in html, url


def test_counts_ignore_unpublished_notes(client, hidden):
    html = client.get("/en/tags/").content.decode()
    assert "1 note" in html and "3 notes" not in html
    series_html = client.get("/en/series/").content.decode()
    assert "1 part" in series_html
    note_html = client.get("/en/notes/public-part/").content.decode()
    assert "Part 1 of 1" in note_html
    assert 'rel="next"' not in note_html


def test_tag_and_series_with_only_drafts_are_404(client, db):
    tag = make_tag("Hidden", "隐藏")
    series = make_series(slug="hidden-series")
    make_draft(tags=[tag], series=series, series_position=1)
    assert client.get(reverse("blog:tag-detail", kwargs={"slug": tag.slug})).status_code == 404
    assert (
        client.get(reverse("blog:series-detail", kwargs={"slug": series.slug})).status_code == 404
    )
    assert "/tags/hidden/" not in client.get(reverse("blog:tag-list")).content.decode()


def test_archive_of_a_month_holding_only_drafts_is_404(client, db):
    note = make_scheduled(slug="future")
    when = note.published_at
    url = reverse("blog:archive-month", kwargs={"year": when.year, "month": when.month})
    assert client.get(url).status_code == 404
    assert client.get(reverse("blog:archive")).content.decode().count("future") == 0


def test_scheduled_note_appears_once_its_time_comes(client, db, settings):
    import time_machine

    note = make_scheduled(title="Later", slug="later")
    url = reverse("blog:note-detail", kwargs={"slug": "later"})
    assert client.get(url).status_code == 404
    with time_machine.travel(note.published_at + timedelta(minutes=1)):
        assert client.get(url).status_code == 200
        assert "Later" in client.get(reverse("blog:home")).content.decode()


def test_unpublished_translation_is_not_linked(client, db):
    draft = make_draft(title="English draft", slug="english-draft", language="en")
    make_note(title="中文", slug="zh-with-draft", translation=draft)
    html = client.get(
        reverse("blog:note-detail", kwargs={"slug": "zh-with-draft"})
    ).content.decode()
    assert "english-draft" not in html and "English draft" not in html


def test_related_notes_are_published_only(client, hidden):
    html = client.get(reverse("blog:note-detail", kwargs={"slug": "public-part"})).content.decode()
    assert 'class="related"' not in html  # its only tag-mates are unpublished
