"""A page the page cache does not hold is rendered from what is kept for the content version.

A list's count and page of notes, a published note with what its page shows beside it (tags,
translation, series parts, related notes) and its article are read or rendered once per
content version and language; the next render of the page at that version (another worker,
another encoding, a URL with a tracking query) reads only the version. Whatever moves the
version — a committed edit, unpublishing, a scheduled note's time — shows at once, and a
preview never sees a kept copy.
"""

from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from blog.caching import store
from blog.models import Language, Note, SiteSettings, Status
from tests.factories import make_draft, make_note, make_scheduled, make_series, make_tag

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cold(settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 0  # every request renders: the page cache is off


@pytest.fixture
def blog(db):
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    scheduling = make_tag("Scheduling", "调度")
    gpu = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    notes = [
        make_note(
            title=f"调度笔记 {n}",
            slug=f"n{n}",
            tags=[scheduling],
            series=gpu if n < 3 else None,
            series_position=n + 1 if n < 3 else None,
            published_ago=timedelta(days=n + 1),
        )
        for n in range(12)
    ]
    english = make_note(
        title="Scheduling, in English", slug="n0-en", language=Language.ENGLISH, tags=[scheduling]
    )
    notes[0].translation = english
    notes[0].save()
    return {"notes": notes, "tag": scheduling, "series": gpu, "english": english}


def content_queries(client, url):
    """The SQL a render of ``url`` ran, but the content version's (read on every request)."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return [q["sql"] for q in captured if "blog_contentversion" not in q["sql"]]


def committed(django_capture_on_commit_callbacks):
    """Changes inside the block commit, as the admin's do: the version moves after them."""
    return django_capture_on_commit_callbacks(execute=True)


@pytest.mark.parametrize(
    "url", ["/", "/?page=2", "/en/", "/tags/scheduling/", "/series/gpu-notes/", "/notes/n1/"]
)
def test_a_page_rendered_again_at_one_content_version_reads_no_content(client, blog, url):
    client.get(url)
    assert content_queries(client, url) == []
    # A query string the page does not read is never stored by the page cache: still nothing.
    assert content_queries(client, f"{url}{'&' if '?' in url else '?'}utm_source=feed") == []


def test_a_note_in_a_series_with_a_translation_reads_nothing_the_second_time(client, blog):
    url = blog["notes"][0].get_absolute_url()
    first = client.get(url).content
    assert content_queries(client, url) == []
    assert client.get(url).content == first


def test_made_up_slugs_keep_nothing(client, blog, monkeypatch):
    client.get("/notes/n1/"), client.get("/tags/scheduling/"), client.get("/series/gpu-notes/")
    written = []
    monkeypatch.setattr(store, "set", lambda key, *args, **kwargs: written.append(key))
    for n in range(20):
        for path in ("notes", "tags", "series"):
            assert client.get(f"/{path}/no-such-{n}/").status_code == 404
    assert written == []


def test_each_interface_language_gets_its_own_article(client, blog):
    url = blog["notes"][1].get_absolute_url()
    chinese = client.get(url).content.decode()
    english = client.get(f"/en{url}").content.decode()
    assert "分钟" in chinese and "minute" not in chinese
    assert "minute" in english and "分钟" not in english


def test_a_committed_edit_shows_at_once_on_the_note_lists_and_neighbours(
    client, blog, django_capture_on_commit_callbacks
):
    note = blog["notes"][1]
    urls = [note.get_absolute_url(), "/", "/tags/scheduling/", "/series/gpu-notes/", "/notes/n0/"]
    for url in urls:
        assert "调度笔记 1" in client.get(url).content.decode(), url
    with committed(django_capture_on_commit_callbacks):
        note.title = "改过的标题"
        note.body += "\n新的一段。\n"
        note.save()
    for url in urls:
        page = client.get(url).content.decode()
        assert "改过的标题" in page and "调度笔记 1<" not in page, url
    assert "新的一段" in client.get(note.get_absolute_url()).content.decode()


def test_a_renamed_tag_and_series_show_at_once(client, blog, django_capture_on_commit_callbacks):
    url = blog["notes"][1].get_absolute_url()
    client.get(url), client.get("/")
    with committed(django_capture_on_commit_callbacks):
        tag, series = blog["tag"], blog["series"]
        tag.name_zh, series.title_zh = "线程调度", "GPU 随记"
        tag.save(), series.save()
    for page in (client.get(url).content.decode(), client.get("/").content.decode()):
        assert "线程调度" in page and "GPU 随记" in page


def test_an_unpublished_note_is_gone_at_once(client, blog, django_capture_on_commit_callbacks):
    note = blog["notes"][1]
    client.get(note.get_absolute_url()), client.get("/")
    with committed(django_capture_on_commit_callbacks):
        note.status = Status.DRAFT
        note.save()
    assert client.get(note.get_absolute_url()).status_code == 404
    assert note.get_absolute_url() not in client.get("/").content.decode()


def test_a_scheduled_note_appears_at_its_time_without_a_save(client, blog):
    scheduled = make_scheduled(title="定时发布的笔记", slug="later", tags=[blog["tag"]])
    url = scheduled.get_absolute_url()
    assert client.get(url).status_code == 404
    assert url not in client.get("/").content.decode()
    with time_machine.travel(scheduled.published_at + timedelta(seconds=1)):
        assert client.get(url).status_code == 200
        assert url in client.get("/").content.decode()
        assert url in client.get("/tags/scheduling/").content.decode()


def test_previews_never_see_a_kept_copy(staff_client, blog):
    staff_client.get(blog["notes"][1].get_absolute_url())  # a published page, kept
    draft = make_draft(title="草稿", slug="draft")
    staff_client.get(draft.get_absolute_url())
    # Not committed: the version stays where it was. The author's preview still shows each save.
    Note.objects.filter(pk=draft.pk).update(title="草稿第二版")
    preview = staff_client.get(draft.get_absolute_url()).content.decode()
    assert "草稿第二版" in preview and "banner-draft" in preview


@override_settings(BIJI_PAGE_CACHE_SECONDS=0)
def test_a_list_page_past_a_scheduled_time_counts_the_new_note(client, blog):
    later = make_scheduled(title="明天的笔记", slug="tomorrow")
    client.get("/"), client.get("/?page=2")
    with time_machine.travel(later.published_at + timedelta(seconds=1)):
        first = client.get("/").content.decode()
        assert later.get_absolute_url() in first
        # Every note moved one place on: the last one of page 1 now opens page 2.
        pushed = Note.objects.published().filter(language=Language.CHINESE)
        pushed = pushed.order_by("-published_at", "-pk")[10]
        assert pushed.get_absolute_url() in client.get("/?page=2").content.decode()
    assert timezone.now() < later.published_at
