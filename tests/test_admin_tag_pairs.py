"""A new tag's two names from the note form: “中文名 / English name” in the tag field creates
the tag with both, or gives an existing tag the name it lacks; a name that contradicts a
tag's stored one is refused with the author's text kept. No trip to the Tags page."""

import html
import re

import pytest
from django.urls import reverse

from blog.authoring.tag_input import PairError, TagPair, parse_tag_input
from blog.models import Note, Tag
from tests.factories import make_note, make_tag, note_form_data

pytestmark = pytest.mark.django_db


def add(client, tags, language="zh-hans", **overrides):
    return client.post(
        reverse("admin:blog_note_add"),
        note_form_data(tags=tags, **overrides),
        HTTP_ACCEPT_LANGUAGE=language,
    )


# --- reading the field (no database) ------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "items"),
    [
        (
            "内存模型 / Memory model",
            [TagPair("内存模型", "Memory model", "内存模型 / Memory model")],
        ),
        (
            "Memory model / 内存模型",
            [TagPair("内存模型", "Memory model", "Memory model / 内存模型")],
        ),
        ("内存模型／Memory model", [TagPair("内存模型", "Memory model", "内存模型／Memory model")]),
        (
            "GPU, 调度 / Scheduling",
            ["GPU", TagPair("调度", "Scheduling", "调度 / Scheduling")],
        ),
        ("调度，GPU、CUDA", ["CUDA", "GPU", "调度"]),  # full-width and enumeration commas
        ("I/O, TCP/IP 协议", ["I/O", "TCP/IP 协议"]),  # a slash inside a name stays
        ("CUDA / cuda", ["CUDA"]),  # the same name twice is one name
        ("GPU CUDA", ["CUDA", "GPU"]),  # taggit's rule: no comma, spaces separate
    ],
)
def test_the_tag_field_reads_names_and_pairs(typed, items):
    assert parse_tag_input(typed) == items


@pytest.mark.parametrize("typed", ["调度 / 排程", "a / b / c", "调度 / "])
def test_a_pair_that_cannot_be_read_is_an_error(typed):
    with pytest.raises(PairError):
        parse_tag_input(typed)


# --- the note form ------------------------------------------------------------------------


def test_a_new_tag_typed_with_both_names_gets_both(staff_client):
    response = add(staff_client, "内存模型 / Memory model, GPU")
    assert response.status_code == 302, response.context["adminform"].form.errors
    tag = Tag.objects.get(name_zh="内存模型")
    assert tag.name == "Memory model" and tag.slug == "memory-model"
    assert sorted(Note.objects.get().tags.names()) == ["GPU", "Memory model"]


def test_a_tag_missing_its_english_name_gets_it(staff_client):
    tag = Tag.objects.create(name="", name_zh="调度器", slug="diao-du-qi")
    response = add(staff_client, "调度器 / Scheduler")
    assert response.status_code == 302
    tag.refresh_from_db()
    assert (tag.name, tag.name_zh, tag.slug) == ("Scheduler", "调度器", "diao-du-qi")
    assert list(Note.objects.get().tags.all()) == [tag]
    assert Tag.objects.count() == 1


def test_a_tag_missing_its_chinese_name_gets_it(staff_client):
    tag = make_tag(name="Kernels", name_zh="")
    assert add(staff_client, "算子 / kernels").status_code == 302
    tag.refresh_from_db()
    assert (tag.name, tag.name_zh) == ("Kernels", "算子")


def test_a_complete_tag_typed_with_both_names_is_just_used(staff_client):
    tag = make_tag(name="Scheduling", name_zh="调度")
    assert add(staff_client, "调度 / Scheduling").status_code == 302
    assert list(Note.objects.get().tags.all()) == [tag]
    assert Tag.objects.count() == 1


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("zh-hans", "标签“调度”已有英文名“Scheduling”"),
        ("en", "The tag “调度” is already called “Scheduling” in English"),
    ],
)
def test_a_contradicting_name_is_refused_and_nothing_is_renamed(staff_client, language, expected):
    make_tag(name="Scheduling", name_zh="调度")
    body = "不能丢的正文"
    response = add(staff_client, "调度 / Scheduler", language=language, body=body)
    assert response.status_code == 200
    assert expected in str(response.context["adminform"].form.errors["tags"])
    html = response.content.decode()
    assert body in html and "调度 / Scheduler" in html
    assert Tag.objects.get().name == "Scheduling" and not Note.objects.exists()


def test_two_names_of_two_different_tags_are_refused(staff_client):
    make_tag(name="Scheduling", name_zh="调度")
    make_tag(name="Kernels", name_zh="算子")
    response = add(staff_client, "调度 / Kernels", language="en")
    assert "two different tags" in str(response.context["adminform"].form.errors["tags"])
    assert not Note.objects.exists()


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh-hans", "“中文名 / 英文名”"), ("en", "“Chinese name / English name”")],
)
def test_an_unreadable_pair_is_explained(staff_client, language, expected):
    response = add(staff_client, "调度 / 排程", language=language)
    assert expected in str(response.context["adminform"].form.errors["tags"])


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh-hans", "中文名 / 英文名"), ("en", "Chinese name / English name")],
)
def test_the_help_text_tells_how(staff_client, language, expected):
    html = staff_client.get(
        reverse("admin:blog_note_add"), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    assert expected in html


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh-hans", "“内存模型”还没有英文名"), ("en", "The tag “内存模型” has no English name yet")],
)
def test_a_new_chinese_only_tag_is_pointed_out_after_saving(staff_client, language, expected):
    response = add(staff_client, "内存模型, GPU", language=language)
    page = staff_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language)
    messages = [str(m) for m in page.context["messages"]]
    assert any(expected in m for m in messages), messages


def test_tags_already_on_the_note_are_not_pointed_out_again(staff_client):
    note = make_note()
    note.tags.add(Tag.objects.create(name="", name_zh="调度器", slug="diao-du-qi"))
    response = staff_client.post(
        reverse("admin:blog_note_change", args=[note.pk]), note_form_data(note, title="新标题")
    )
    page = staff_client.get(response["Location"])
    assert not [m for m in page.context["messages"] if "调度器" in str(m)]


@pytest.mark.parametrize(
    ("note_language", "admin_language", "shown", "not_shown"),
    [
        ("zh-hans", "en", "异步拷贝", "Async copy"),
        ("en", "zh-hans", "Async copy", "异步拷贝"),
    ],
)
def test_the_tag_field_shows_each_tag_in_the_notes_language(
    staff_client, note_language, admin_language, shown, not_shown
):
    assert add(staff_client, "异步拷贝 / Async copy", language=admin_language).status_code == 302
    note = Note.objects.get()
    note.language = note_language
    note.save()
    page = staff_client.get(
        reverse("admin:blog_note_change", args=[note.pk]), HTTP_ACCEPT_LANGUAGE=admin_language
    )
    typed = html.unescape(re.search(r'name="tags" value="([^"]*)"', page.content.decode())[1])
    assert shown in typed and not_shown not in typed
    # Saving the form as shown keeps the tag as it was: the name resolves back to it.
    saved = staff_client.post(
        reverse("admin:blog_note_change", args=[note.pk]),
        note_form_data(note, tags=typed),
        HTTP_ACCEPT_LANGUAGE=admin_language,
    )
    assert saved.status_code == 302
    assert [str(tag.name) for tag in Note.objects.get().tags.all()] == ["Async copy"]
