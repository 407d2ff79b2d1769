"""Translations in the note form: the link shows on both notes of a pair, whichever holds it,
and can be changed or removed from either; "Start a translation" makes the linked draft in the
other language with what there is to translate, and refuses a note that has one already."""

import pytest
from bs4 import BeautifulSoup
from django.core.files.base import ContentFile
from django.urls import reverse

from blog.models import Language, Note, Status
from tests.factories import author_with, make_note, make_series, make_tag, note_form_data

pytestmark = pytest.mark.django_db


def change_url(note):
    return reverse("admin:blog_note_change", args=[note.pk])


def translate_url(note):
    return reverse("admin:blog_note_translate", args=[note.pk])


def change_form(client, note, language="zh-hans"):
    response = client.get(change_url(note), HTTP_ACCEPT_LANGUAGE=language)
    return BeautifulSoup(response.content, "html.parser")


@pytest.fixture
def pair():
    """A Chinese note whose English translation holds the link (as the demo's pair does)."""
    chinese = make_note(title="调度", slug="scheduling")
    english = make_note(
        title="Scheduling", slug="scheduling-en", language=Language.ENGLISH, translation=chinese
    )
    return chinese, english


# --- the translation field, on both notes ------------------------------------------------


def selected_translation(page):
    option = page.select_one("select[name=translation] option[selected]")
    return option["value"] if option else None


def test_the_note_that_does_not_hold_the_link_shows_it(staff_client, pair):
    chinese, english = pair
    assert selected_translation(change_form(staff_client, chinese)) == str(english.pk)
    assert selected_translation(change_form(staff_client, english)) == str(chinese.pk)


def test_saving_the_other_side_unchanged_keeps_one_link(staff_client, pair):
    chinese, english = pair
    data = note_form_data(chinese, translation=english.pk, title="调度（修订）")
    assert staff_client.post(change_url(chinese), data).status_code == 302
    chinese.refresh_from_db()
    english.refresh_from_db()
    assert chinese.title == "调度（修订）"
    assert chinese.counterpart == english and english.counterpart == chinese
    assert chinese.translation_id is None and english.translation_id == chinese.pk


def test_emptying_the_field_on_the_other_side_unlinks_the_pair(staff_client, pair):
    chinese, english = pair
    data = note_form_data(chinese, translation="")
    assert staff_client.post(change_url(chinese), data).status_code == 302
    chinese.refresh_from_db()
    english.refresh_from_db()
    assert chinese.counterpart is None and english.counterpart is None


def test_choosing_another_note_on_the_other_side_moves_the_link(staff_client, pair):
    chinese, english = pair
    other = make_note(title="Scheduling, again", language=Language.ENGLISH)
    data = note_form_data(chinese, translation=other.pk)
    assert staff_client.post(change_url(chinese), data).status_code == 302
    chinese.refresh_from_db()
    english.refresh_from_db()
    assert chinese.counterpart == other
    assert english.counterpart is None


# --- start a translation -----------------------------------------------------------------


def test_a_note_without_translation_offers_to_start_one_in_the_other_language(staff_client):
    note = make_note(title="调度")
    zh = change_form(staff_client, note, "zh-hans").select_one("form.start-translation")
    assert zh["action"] == translate_url(note) and zh["method"] == "post"
    assert zh.button.get_text(strip=True) == "开始翻译（英文）"
    en = change_form(staff_client, note, "en").select_one("form.start-translation")
    assert en.button.get_text(strip=True) == "Start a translation (English)"


def test_a_note_with_a_translation_links_to_it_instead(staff_client, pair):
    chinese, english = pair
    page = change_form(staff_client, chinese, "en")
    assert page.select_one("form.start-translation") is None
    link = page.select_one("a.translation-link")
    assert link["href"] == change_url(english)
    assert link.get_text(strip=True) == "Open the translation (English)"
    link = change_form(staff_client, english, "zh-hans").select_one("a.translation-link")
    assert link["href"] == change_url(chinese)
    assert link.get_text(strip=True) == "打开译文（中文）"


def test_starting_a_translation_makes_the_linked_draft_and_opens_it(staff_client, settings):
    series = make_series()
    tags = [make_tag(name="Scheduling", name_zh="调度"), make_tag(name="CUDA", name_zh="")]
    original = make_note(
        title="Warp 调度",
        slug="warp-scheduling",
        body="## 调度\n\n![一张图](/media/uploads/2025/03/warp.png)\n",
        summary="摘要",
        series=series,
        series_position=3,
        tags=tags,
        source_author="某人",
        cover_alt="封面",
    )
    original.cover.save("warp.png", ContentFile(b"not read"), save=True)
    covers_before = sorted(p.name for p in (settings.MEDIA_ROOT / "covers").rglob("*"))

    response = staff_client.post(translate_url(original), HTTP_ACCEPT_LANGUAGE="zh-hans")

    draft = Note.objects.get(language=Language.ENGLISH)
    assert response.status_code == 302 and response["Location"] == change_url(draft)
    assert draft.status == Status.DRAFT and draft.published_at is None
    assert (draft.title, draft.body, draft.summary) == (original.title, original.body, "摘要")
    assert draft.slug == "warp-scheduling-en"
    assert (draft.series, draft.series_position) == (series, 3)
    assert sorted(draft.tags.names()) == ["CUDA", "Scheduling"]
    assert draft.source_author == "某人" and draft.cover_alt == "封面"
    # The cover is the original's file, referenced: no copy in the media folder.
    assert draft.cover.name == original.cover.name
    assert sorted(p.name for p in (settings.MEDIA_ROOT / "covers").rglob("*")) == covers_before
    assert draft.counterpart == original and Note.objects.get(pk=original.pk).counterpart == draft
    # The draft's page says what to do, in the admin's language; its history says where it
    # came from.
    page = staff_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "翻译" in str(list(page.context["messages"])[0])
    history = staff_client.get(
        reverse("admin:blog_note_history", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "Warp 调度" in history


def test_an_english_note_s_translation_is_a_chinese_draft(staff_client):
    original = make_note(title="Pinned memory", slug="pinned", language=Language.ENGLISH)
    staff_client.post(translate_url(original))
    draft = Note.objects.get(language=Language.CHINESE)
    assert draft.slug == "pinned-zh" and draft.translation == original


def test_a_taken_position_leaves_the_draft_out_of_the_series_and_says_so(staff_client):
    series = make_series()
    original = make_note(title="调度", series=series, series_position=2)
    make_note(title="Another part", language=Language.ENGLISH, series=series, series_position=2)
    response = staff_client.post(translate_url(original), follow=True, HTTP_ACCEPT_LANGUAGE="en")
    draft = Note.objects.get(translation=original)
    assert draft.series is None
    assert any("Position 2" in str(m) for m in response.context["messages"])
    original.refresh_from_db()
    assert (original.series, original.series_position) == (series, 2)  # not moved


@pytest.mark.parametrize("holder", ["original", "translation"])
def test_a_note_with_a_translation_is_refused_with_a_link_to_it(staff_client, pair, holder):
    chinese, english = pair
    note = chinese if holder == "original" else english
    other = english if holder == "original" else chinese
    response = staff_client.post(translate_url(note), follow=True, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.redirect_chain[-1][0] == change_url(note)
    message = str(list(response.context["messages"])[0])
    assert "已有译文" in message and change_url(other) in message
    assert Note.objects.count() == 2


def test_starting_a_translation_takes_a_post_and_the_right_to_add_notes(client, staff_client):
    note = make_note()
    assert staff_client.get(translate_url(note)).status_code == 405
    editor = author_with("change_note", "view_note", username="editor")
    client.force_login(editor)
    assert client.post(translate_url(note)).status_code == 403
    assert "start-translation" not in client.get(change_url(note)).content.decode()
    assert Note.objects.count() == 1
