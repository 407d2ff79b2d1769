"""Friendly validation in the admin: every refusal says what to do, on the field it concerns,
in the admin's language; no constraint name ever reaches the author."""

import re

import pytest
from bs4 import BeautifulSoup
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import models
from django.urls import reverse
from django.utils import timezone, translation

from blog.models import Language, Note, Series, Status, Tag
from tests.factories import (
    make_draft,
    make_note,
    make_scheduled,
    make_series,
    make_tag,
    note_form_data,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(client):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    return client


def add(client, **overrides):
    return client.post(reverse("admin:blog_note_add"), note_form_data(**overrides))


def no_raw_constraint(html):
    names = {
        constraint.name
        for model in apps.get_app_config("blog").get_models()
        for constraint in model._meta.constraints
    }
    assert "Constraint “" not in html and "约束" not in html
    assert not [name for name in names if name in html]


# --- publication time -------------------------------------------------------------------


def test_published_with_an_empty_time_means_now(author):
    before = timezone.now()
    response = add(author, status="published")
    assert response.status_code == 302
    note = Note.objects.get()
    assert note.published_at >= before and note.is_published()


# --- series positions -------------------------------------------------------------------


def test_a_taken_position_names_its_holder_with_a_link_and_the_next_free_one(author):
    series = make_series()
    holder = make_draft(title="第一部分（草稿）", series=series, series_position=1)
    make_note(series=series, series_position=2)
    response = add(author, series=series.pk, series_position=1, body="不能丢的正文")
    assert response.status_code == 200
    form = response.context["adminform"].form
    error = str(form.errors["series_position"])
    assert "第一部分（草稿）" in error
    assert reverse("admin:blog_note_change", args=[holder.pk]) in error
    assert re.search(r"\b3\b", error)  # 1 and 2 are taken
    html = response.content.decode()
    assert "不能丢的正文" in html
    no_raw_constraint(html)


def test_positions_are_unique_per_series_and_language(author):
    series = make_series()
    make_note(series=series, series_position=1, language=Language.CHINESE)
    response = add(author, series=series.pk, series_position=1, language="en", title="Part one")
    assert response.status_code == 302


def test_a_translation_takes_its_original_s_series_and_position(author):
    series = make_series()
    original = make_note(title="调度", series=series, series_position=2)
    response = add(author, title="Scheduling", language="en", translation=original.pk)
    assert response.status_code == 302
    english = Note.objects.get(title="Scheduling")
    assert (english.series, english.series_position) == (series, 2)


def test_moving_a_note_moves_its_translation_when_the_place_is_free(author):
    series = make_series()
    original = make_note(title="调度", series=series, series_position=2)
    english = make_note(
        title="Scheduling",
        language=Language.ENGLISH,
        series=series,
        series_position=2,
        translation=original,
    )
    response = author.post(
        f"/admin/blog/note/{original.pk}/change/", note_form_data(original, series_position="3")
    )
    assert response.status_code == 302
    english.refresh_from_db()
    assert english.series_position == 3


def test_a_translation_that_cannot_follow_is_explained(author):
    series = make_series()
    original = make_note(title="调度", series=series, series_position=2)
    make_note(
        title="Scheduling",
        language=Language.ENGLISH,
        series=series,
        series_position=2,
        translation=original,
    )
    make_note(title="Other part", language=Language.ENGLISH, series=series, series_position=3)
    response = author.post(
        reverse("admin:blog_note_change", args=[original.pk]),
        note_form_data(original, series_position=3),
    )
    assert response.status_code == 200
    assert "Other part" in str(response.context["adminform"].form.errors["series_position"])


def test_series_admin_shows_drafts_and_scheduled_notes_holding_positions(author):
    series = make_series()
    make_draft(title="草稿部分", series=series, series_position=1)
    make_scheduled(title="定时部分", series=series, series_position=2)
    html = author.get(reverse("admin:blog_series_change", args=[series.pk])).content.decode()
    with translation.override("zh-hans"):
        assert "草稿部分" in html and "定时部分" in html
        assert html.count(translation.gettext("Scheduled")) >= 1


# --- no constraint name reaches the author ---------------------------------------------


def test_every_constraint_of_the_admin_s_models_speaks_to_the_author():
    """Django's default message names the constraint: each one carries its own."""
    for model in admin.site._registry:
        for constraint in model._meta.constraints:
            if isinstance(constraint, models.UniqueConstraint) and not (
                constraint.condition or constraint.expressions
            ):
                continue  # Django words these itself ("… with this … already exists")
            message = str(constraint.get_violation_error_message())
            assert constraint.name not in message, (model, constraint.name)


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "name_zh": "", "slug": ""},  # blog_tag_has_a_name
        {"name": "Kernels", "name_zh": "", "slug": ""},  # blog_tag_unique_name
        {"name": "", "name_zh": "算子", "slug": ""},  # blog_tag_unique_name_zh
        {"name": "New", "name_zh": "", "slug": "kernels"},  # slug unique
    ],
)
def test_tag_constraints_are_explained_in_the_admin(author, data):
    make_tag(name="Kernels", name_zh="算子")
    response = author.post(reverse("admin:blog_tag_add"), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors
    no_raw_constraint(response.content.decode())


def test_note_slug_and_series_slug_duplicates_are_explained(author):
    make_note(slug="taken")
    response = add(author, slug="taken")
    assert response.status_code == 200 and "slug" in response.context["adminform"].form.errors
    no_raw_constraint(response.content.decode())
    Series.objects.create(title_zh="系列", title_en="Series", slug="gpu")
    response = author.post(
        reverse("admin:blog_series_add"),
        {
            "title_zh": "另一个",
            "title_en": "Other",
            "slug": "gpu",
            "description": "",
            "notes-TOTAL_FORMS": "0",
            "notes-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200
    no_raw_constraint(response.content.decode())


# --- change list, actions ---------------------------------------------------------------


def test_scheduled_notes_show_as_scheduled_and_publish_now_sets_the_time(author):
    scheduled = make_scheduled(title="明天的笔记")
    with translation.override("en"):
        html = author.get(
            reverse("admin:blog_note_changelist"), HTTP_ACCEPT_LANGUAGE="en"
        ).content.decode()
        assert "Scheduled" in html
    author.post(
        reverse("admin:blog_note_changelist"),
        {"action": "publish_now", "_selected_action": [scheduled.pk]},
    )
    scheduled.refresh_from_db()
    assert scheduled.is_published() and scheduled.status == Status.PUBLISHED


def test_the_state_filter_finds_scheduled_notes(author):
    make_scheduled(title="定时")
    make_note(title="已发布")
    response = author.get(reverse("admin:blog_note_changelist"), {"state": "scheduled"})
    assert [n.title for n in response.context["cl"].result_list] == ["定时"]


# --- tags -------------------------------------------------------------------------------


def test_a_tag_typed_in_chinese_gets_no_english_copy(author):
    add(author, tags="新标签, CUDA")
    tag = Tag.objects.get(name_zh="新标签")
    assert tag.name == "" and tag.slug == "xin-biao-qian"
    assert str(tag) == "新标签"


def test_the_needs_a_name_filter_skips_latin_script_names(author):
    make_tag(name="CUDA", name_zh="")
    make_tag(name="Kernels", name_zh="算子")
    Tag.objects.create(name="", name_zh="调度器", slug="diao-du-qi")
    response = author.get(reverse("admin:blog_tag_changelist"), {"names": "untranslated"})
    assert [t.name_zh for t in response.context["cl"].result_list] == ["调度器"]


def test_a_chinese_only_tag_survives_editing_the_note(author):
    note = make_note(title="调度")
    tag = Tag.objects.create(name="", name_zh="调度器", slug="diao-du-qi")
    note.tags.add(tag)
    html = author.get(reverse("admin:blog_note_change", args=[note.pk])).content.decode()
    assert 'value="调度器"' in html


def test_the_tag_filter_uses_the_admin_s_language(author):
    tag = make_tag(name="Kernels", name_zh="算子")
    make_note(tags=[tag])
    response = author.get(reverse("admin:blog_note_changelist"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = response.content.decode()
    assert "算子 / Kernels" in html


def test_taggit_s_own_tag_admin_is_hidden():
    from taggit.models import Tag as TaggitTag

    assert not admin.site.is_registered(TaggitTag)


# --- branding, labels, share link, slugs ------------------------------------------------


def test_the_admin_carries_the_site_title(author):
    from blog.models import SiteSettings

    SiteSettings.objects.update_or_create(pk=1, defaults={"title": "笔记 biji"})
    html = author.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "笔记 biji 管理" in html


def test_every_label_of_the_note_form_is_translated(author):
    note = make_draft()
    html = author.get(
        reverse("admin:blog_note_change", args=[note.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    labels = re.findall(r"<label[^>]*>([^<]+)</label>", html)
    english = [label for label in labels if re.search("[A-Za-z]{3,}", label)]
    assert not english, english
    assert "Excerpt" not in html


def test_the_share_link_is_a_full_url_with_a_copy_button(author, settings):
    settings.SITE_URL = "https://notes.example"
    note = make_draft(slug="secret")
    html = author.get(reverse("admin:blog_note_change", args=[note.pk])).content.decode()
    assert 'href="https://notes.example/notes/secret/share/' in html
    assert 'data-copy="https://notes.example/notes/secret/share/' in html


def test_a_new_note_s_slug_is_proposed_short_and_kept_afterwards(author):
    proposal = author.get(reverse("admin:blog_note_slug"), {"title": "在 H100 上超越 cuBLAS"})
    assert proposal.json() == {"slug": "zai-h100-shang-chao-yue-cublas"}
    add(author, title="调度器的设计与实现：从单队列到多级反馈队列再到更多")
    note = Note.objects.get()
    assert note.slug == "diao-du-qi-she-ji-yu-shi-xian-cong-dan-dui-lie"
    assert len(note.slug) <= 50
    response = author.post(
        reverse("admin:blog_note_change", args=[note.pk]),
        note_form_data(note, title="完全不同的标题", slug=""),
    )
    assert response.status_code == 302
    note.refresh_from_db()
    assert note.slug == "diao-du-qi-she-ji-yu-shi-xian-cong-dan-dui-lie"


def test_the_preview_is_the_public_article(author, client):
    """The editor's preview HTML is byte for byte the body of the public note page."""
    body = (
        "[TOC]\n\n## 调度\n\n```cuda\n__global__ void k() {}\n```\n\n"
        "$$\\sum_i x_i$$\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n脚注[^1]\n\n[^1]: 说明\n"
    )
    note = make_note(slug="preview-is-page", body=body, language=Language.ENGLISH)
    preview = author.post(
        reverse("admin:blog_note_editor_preview"), {"content": body, "language": "en"}
    ).content.decode()
    page = BeautifulSoup(client.get(note.get_absolute_url()).content, "html.parser")
    article = page.select_one("article .prose")
    assert article is not None and article["lang"] == "en"
    # Both through one parser, so only the markup can differ, not its spelling.
    assert BeautifulSoup(preview, "html.parser").decode().strip() == (
        article.decode_contents().strip()
    )
