"""The author's workflow in the admin: write, tag, place in a series, publish, preview."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from django.utils import timezone

from blog.models import Note, SiteSettings, Status, Tag
from tests.factories import (
    make_draft,
    make_note,
    make_scheduled,
    make_series,
    make_tag,
    note_form_data,
)

pytestmark = pytest.mark.django_db


def test_the_add_form_shows_the_markdown_editor(staff_client):
    response = staff_client.get(reverse("admin:blog_note_add"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "markdownx-editor" in html
    assert f'data-preview-url="{reverse("admin:blog_note_editor_preview")}"' in html
    assert 'data-markdownx-upload-urls-path="/admin/editor/upload/"' in html


def test_create_a_note_with_tags_and_series_through_the_admin(staff_client):
    make_tag(name="Scheduling", name_zh="调度")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记")
    response = staff_client.post(
        reverse("admin:blog_note_add"),
        note_form_data(
            tags="调度, CUDA",
            series=series.pk,
            series_position=1,
            status="published",
            published_at_0="2025-03-14",
            published_at_1="09:30:00",
        ),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    note = Note.objects.get()
    assert note.slug == "warp-diao-du-bi-ji"  # the title in ASCII (blog.text.slugs.proposed_slug)
    assert note.series == series and note.series_position == 1
    assert sorted(note.tags.names()) == ["CUDA", "Scheduling"]
    assert Tag.objects.count() == 2  # "调度" found the existing bilingual tag
    assert note.is_published()
    assert "<h2" in note.body_html


def test_edit_keeps_the_slug_and_rerenders(staff_client):
    note = make_note(title="旧标题", slug="stable-slug", body="旧的正文")
    response = staff_client.post(
        reverse("admin:blog_note_change", args=[note.pk]),
        note_form_data(note, title="新标题", body="新的正文 **加粗**", tags="GPU"),
    )
    assert response.status_code == 302
    note.refresh_from_db()
    assert note.title == "新标题" and note.slug == "stable-slug"
    assert "<strong>加粗</strong>" in note.body_html
    assert list(note.tags.names()) == ["GPU"]


def test_an_invalid_form_keeps_what_the_author_wrote(staff_client):
    series = make_series()
    make_note(series=series, series_position=1)
    body = "一段很长的正文，不能丢。" * 20
    response = staff_client.post(
        reverse("admin:blog_note_add"),
        note_form_data(body=body, series=series.pk, series_position=1),
    )
    assert response.status_code == 200  # the form again, with the error
    assert response.context["adminform"].form.errors
    assert body in response.content.decode()


def test_publish_and_unpublish_actions(staff_client):
    drafts = [make_draft(), make_draft()]
    changelist = reverse("admin:blog_note_changelist")
    staff_client.post(changelist, {"action": "publish", "_selected_action": [n.pk for n in drafts]})
    assert Note.objects.published().count() == 2
    staff_client.post(changelist, {"action": "unpublish", "_selected_action": [drafts[0].pk]})
    assert Note.objects.get(pk=drafts[0].pk).status == Status.DRAFT
    assert Note.objects.published().count() == 1


def test_publishing_a_draft_with_a_future_date_schedules_it(staff_client):
    later = timezone.now() + timezone.timedelta(days=2)
    note = make_draft(published_at=later)
    staff_client.post(
        reverse("admin:blog_note_changelist"), {"action": "publish", "_selected_action": [note.pk]}
    )
    note.refresh_from_db()
    assert note.status == Status.PUBLISHED
    assert note.published_at == later and note.is_scheduled
    assert not Note.objects.published().exists()


def test_a_draft_offers_a_share_link_and_view_on_site(staff_client):
    note = make_draft(slug="secret-draft")
    html = staff_client.get(reverse("admin:blog_note_change", args=[note.pk])).content.decode()
    assert "/notes/secret-draft/share/" in html
    assert reverse("admin:view_on_site", args=[*_content_type(note), note.pk]) in html


def _content_type(note):
    from django.contrib.contenttypes.models import ContentType

    return [ContentType.objects.get_for_model(note).pk]


def _changelist(client, url, query=""):
    """The change list as the author sees it (in English): its listed titles and page."""
    response = client.get(url + query, headers={"accept-language": "en"})
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    titles = {a.get_text(strip=True) for a in page.select("#result_list tbody th a")}
    return titles, page


def _choice(page, selector, text):
    """The href of the link reading ``text`` inside ``selector``."""
    links = {a.get_text(" ", strip=True): a["href"] for a in page.select(f"{selector} a[href]")}
    assert text in links, (text, sorted(links))
    return links[text]


def test_changelist_search(staff_client):
    make_note(title="FlashAttention tiling")
    make_note(title="Amdahl 定律")
    url = reverse("admin:blog_note_changelist")
    titles, _ = _changelist(staff_client, url, "?q=FlashAttention")
    assert titles == {"FlashAttention tiling"}


def test_changelist_filters_narrow_the_list(staff_client):
    kernels = make_tag(name="Kernels", name_zh="算子")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记")
    make_note(title="In series", series=series, series_position=1, tags=[kernels])
    make_note(title="In English", language="en")
    make_draft(title="A draft")
    make_scheduled(title="Coming soon")
    url = reverse("admin:blog_note_changelist")
    everything = {"In series", "In English", "A draft", "Coming soon"}
    titles, page = _changelist(staff_client, url)
    assert titles == everything
    assert page.select_one("#changelist-filter")
    for label, expected in [
        ("Draft", {"A draft"}),
        ("Scheduled", {"Coming soon"}),
        ("Published", {"In series", "In English"}),
        ("English", {"In English"}),
        ("GPU 笔记 / GPU notes", {"In series"}),
    ]:
        query = _choice(page, "#changelist-filter", label)
        assert _changelist(staff_client, url, query)[0] == expected, label
    tag_links = [a for a in page.select("#changelist-filter a[href]") if "Kernels" in a.get_text()]
    assert len(tag_links) == 1 and "算子" in tag_links[0].get_text()
    assert _changelist(staff_client, url, tag_links[0]["href"])[0] == {"In series"}


def test_changelist_date_hierarchy_drills_into_years(staff_client):
    make_note(title="In 2024", published_ago=None, published_at=_aware(2024, 5, 1))
    make_note(title="In 2025", published_ago=None, published_at=_aware(2025, 3, 14))
    url = reverse("admin:blog_note_changelist")
    _, page = _changelist(staff_client, url)
    assert page.select_one("nav.toplinks")
    titles, year = _changelist(staff_client, url, _choice(page, "nav.toplinks", "2025"))
    assert titles == {"In 2025"}
    assert year.select_one("nav.toplinks a.date-back")  # back to all dates


def _aware(*args):
    return timezone.make_aware(timezone.datetime(*args, 12))


def test_autocomplete_finds_series_by_either_title(staff_client):
    make_series(title_en="Parallel computing", title_zh="并行计算")
    response = staff_client.get(
        reverse("admin:autocomplete"),
        {"term": "并行", "app_label": "blog", "model_name": "note", "field_name": "series"},
    )
    assert response.status_code == 200
    assert [r["text"] for r in response.json()["results"]] == ["并行计算 / Parallel computing"]


def test_series_admin_lists_its_notes_in_order(staff_client):
    series = make_series()
    make_note(title="第二部分", series=series, series_position=2)
    make_note(title="第一部分", series=series, series_position=1)
    html = staff_client.get(reverse("admin:blog_series_change", args=[series.pk])).content.decode()
    assert html.index("第一部分") < html.index("第二部分")


def test_tag_admin_shows_both_names_and_usage(staff_client):
    tag = make_tag(name="Kernels", name_zh="算子")
    make_note(tags=[tag])
    make_note(tags=[tag])
    response = staff_client.get(reverse("admin:blog_tag_changelist"))
    html = response.content.decode()
    assert "算子" in html and "Kernels" in html
    assert response.context["cl"].result_list[0].usage == 2


def test_site_settings_is_a_single_row(staff_client):
    url = reverse("admin:blog_sitesettings_changelist")
    assert staff_client.get(url)["Location"] == reverse("admin:blog_sitesettings_add")
    SiteSettings.objects.create(title="笔记")
    assert staff_client.get(url)["Location"] == reverse("admin:blog_sitesettings_change", args=[1])
    assert staff_client.get(reverse("admin:blog_sitesettings_add")).status_code == 403


def test_the_admin_requires_login(client):
    response = client.get(reverse("admin:blog_note_changelist"))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
