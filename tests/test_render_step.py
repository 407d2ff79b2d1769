"""Rendering is a step of its own: save() renders changed Markdown, render() stores HTML only."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from blog.models import Note, SiteSettings
from tests.factories import make_note, make_page, make_series

pytestmark = pytest.mark.django_db


def stored(note):
    return Note.objects.get(pk=note.pk)


def test_saving_changed_markdown_stores_its_html_in_the_same_save():
    note = make_note(body="旧的正文")
    note.body = "## 新标题\n\n新的正文 with `code`."
    note.save()
    row = stored(note)
    assert '<h2 id="新标题">' in row.body_html and ">code</code>." in row.body_html
    assert row.excerpt == "新的正文 with code."
    assert 'href="#新标题"' in row.toc_html
    assert row.word_count == 3 + 4 + 2  # 新标题, 新的正文 (a Han character is a word), with code


def test_a_summary_edit_changes_the_excerpt():
    note = make_note(body="正文")
    note.summary = "作者写的摘要"
    note.save()
    assert stored(note).excerpt == "作者写的摘要"


def test_a_partial_save_of_the_body_still_renders_it():
    note = make_note(body="旧的")
    note.body = "**新的**"
    note.save(update_fields=["body"])
    assert stored(note).body_html == "<p><strong>新的</strong></p>"


def test_update_or_create_renders_the_new_body():
    note = make_note(body="旧的")
    Note.objects.update_or_create(slug=note.slug, defaults={"body": "*更新*"})
    assert stored(note).body_html == "<p><em>更新</em></p>"


def test_a_partial_save_of_other_fields_leaves_unsaved_text_out_of_the_html():
    note = make_note(body="已保存的正文")
    note.body = "没有保存的正文"
    note.title = "新标题"
    note.save(update_fields=["title"])
    row = stored(note)
    assert row.body == "已保存的正文" and "已保存的正文" in row.body_html


def test_saving_without_a_markdown_change_does_not_render_again():
    note = make_note(body="正文")
    Note.objects.filter(pk=note.pk).update(body_html="<p>kept</p>")
    note = stored(note)
    note.title = "只改标题"
    note.save()
    assert stored(note).body_html == "<p>kept</p>"


def test_render_stores_the_derived_fields_without_moving_updated_at():
    note = make_note(body="**粗体**")
    long_ago = timezone.now() - timedelta(days=30)
    Note.objects.filter(pk=note.pk).update(updated_at=long_ago, body_html="stale", word_count=0)
    note = stored(note)
    note.render()
    row = stored(note)
    assert row.body_html == "<p><strong>粗体</strong></p>" and row.word_count == 2
    assert row.updated_at == long_ago


@pytest.mark.parametrize(
    ("make", "source", "derived", "text", "html"),
    [
        (
            make_series,
            "description",
            "description_html",
            "**系列**",
            "<p><strong>系列</strong></p>",
        ),
        (make_page, "body", "body_html", "*页面*", "<p><em>页面</em></p>"),
        (
            lambda: SiteSettings.objects.create(),
            "footer",
            "footer_html",
            "`页脚`",
            "<p><code>页脚</code></p>",
        ),
    ],
)
def test_series_pages_and_site_settings_render_on_save_and_on_render(
    make, source, derived, text, html
):
    obj = make()
    setattr(obj, source, text)
    obj.save()
    model = type(obj)
    assert getattr(model.objects.get(pk=obj.pk), derived) == html
    model.objects.filter(pk=obj.pk).update(**{derived: "stale"})
    obj = model.objects.get(pk=obj.pk)
    obj.render()
    assert getattr(model.objects.get(pk=obj.pk), derived) == html


def test_the_admin_action_renders_again_without_moving_dates(staff_client):
    note = make_note(body="**粗体**")
    long_ago = timezone.now() - timedelta(days=30)
    Note.objects.filter(pk=note.pk).update(updated_at=long_ago, body_html="stale")
    response = staff_client.post(
        reverse("admin:blog_note_changelist"),
        {"action": "render_again", "_selected_action": [note.pk]},
        follow=True,
    )
    assert response.status_code == 200
    row = stored(note)
    assert row.body_html == "<p><strong>粗体</strong></p>" and row.updated_at == long_ago
