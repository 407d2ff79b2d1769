"""The conflict screen through the real admin views, two logged-in authors, the forms posted as
a browser posts them (every field of the page, hidden ones included).

A stale save shows the other save's changes first, applies those that touch other lines than
the author's, asks only where both changed the same lines (theirs, mine or both), and loses
nothing the author wrote. Nothing is saved until the author saves the merged form.
"""

import re

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from blog.models import Note, Page, Status
from tests.factories import make_draft, make_page

pytestmark = pytest.mark.django_db

BODY = "".join(f"第 {n} 段：调度器每个周期挑一个 warp。\n\n" for n in range(1, 31))


@pytest.fixture
def language():
    return "en"


@pytest.fixture
def two_authors(language):
    clients = []
    for name in ("lin", "wang"):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        user = get_user_model().objects.create_superuser(name, f"{name}@example.com", None)
        client.force_login(user)
        clients.append(client)
    return clients


def form_data(html, **changes):
    """What a browser posts for the change form in ``html``, with ``changes`` typed in."""
    soup = BeautifulSoup(html, "html.parser")
    form = soup.find("form", id=re.compile(r"_form$")) or soup.select_one(
        "#content-main form[method=post]"
    )
    data = {}
    for element in form.find_all(["input", "textarea", "select"]):
        name = element.get("name")
        if not name or element.has_attr("disabled"):
            continue
        if element.name == "textarea":
            data[name] = element.text.removeprefix("\n")  # the parser drops that newline
        elif element.name == "select":
            chosen = element.find("option", selected=True)
            data[name] = chosen.get("value", "") if chosen else ""
        elif element.get("type") in ("checkbox", "radio"):
            if element.has_attr("checked"):
                data[name] = element.get("value", "on")
        elif element.get("type") not in ("submit", "button", "file", "image"):
            data[name] = element.get("value", "")
    return {**data, **changes}


def change_url(obj):
    return reverse(f"admin:blog_{obj._meta.model_name}_change", args=[obj.pk])


def open_form(client, obj):
    response = client.get(change_url(obj))
    assert response.status_code == 200
    return form_data(response.content.decode())


def save(client, obj, data):
    return client.post(change_url(obj), data)


def refused(response):
    assert response.status_code == 200, "saved, where a conflict was expected"
    html = response.content.decode()
    return html, BeautifulSoup(html, "html.parser")


def stored_text(text):
    """A text as saved from a browser's form: line endings as posted, outer space stripped."""
    return text.replace("\r\n", "\n").strip()


def panel_of(soup):
    return soup.select_one(".errorlist.nonfield .edit-conflict")


def textarea(soup, name="body"):
    return soup.find("textarea", attrs={"name": name}).text.removeprefix("\n")


def test_the_other_save_s_changes_are_shown_first_and_applied_where_lines_differ(two_authors):
    lin, wang = two_authors
    note = make_draft(title="调度笔记", body=BODY)
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    lin_form["body"] = BODY + "林在最后加的一段。\n"
    assert save(lin, note, lin_form).status_code == 302

    wang_form["body"] = BODY.replace("第 1 段：", "第 1 段（王改）：")
    html, soup = refused(save(wang, note, wang_form))
    assert "王改" not in Note.objects.get(pk=note.pk).body  # nothing saved

    panel = panel_of(soup)
    theirs, merged = panel.select_one(".conflict-theirs"), panel.select_one(".conflict-merge")
    # First what the other save did: who, and its added line, in the diff before anything else.
    assert theirs is not None and html.index("conflict-theirs") < html.index("conflict-merge")
    assert "lin" in theirs.text and "+林在最后加的一段。" in theirs.select_one(".text-diff").text
    assert not merged.select(".conflict-choice")  # nothing to ask
    # The form already holds both changes, with no marker lines.
    text = textarea(soup)
    assert text == BODY.replace("第 1 段：", "第 1 段（王改）：") + "林在最后加的一段。\n"
    assert "<<<<<<<" not in text

    assert save(wang, note, form_data(html)).status_code == 302
    assert stored_text(Note.objects.get(pk=note.pk).body) == text.strip()


def test_where_both_changed_the_same_lines_the_author_chooses(two_authors):
    lin, wang = two_authors
    note = make_draft(body=BODY)
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    lin_form["body"] = BODY.replace("第 2 段：调度器", "第 2 段：林说调度器").replace(
        "第 30 段", "第三十段"
    )
    save(lin, note, lin_form)
    wang_form["body"] = BODY.replace("第 2 段：调度器", "第 2 段：王说调度器")
    html, soup = refused(save(wang, note, wang_form))

    choices = panel_of(soup).select(".conflict-choice")
    assert len(choices) == 1
    assert "林说" in choices[0].select_one(".conflict-side-theirs").text
    assert "王说" in choices[0].select_one(".conflict-side-mine").text
    assert {radio["value"] for radio in choices[0].select("input[type=radio]")} == {
        "theirs",
        "mine",
        "both",
    }
    text = textarea(soup)
    assert "林说" in text and "王说" in text and "第三十段" in text  # both kept, theirs applied

    # Saved without a choice: asked again, nothing saved, both still in the form.
    html, soup = refused(save(wang, note, form_data(html)))
    assert "林说" in textarea(soup) and "王说" in textarea(soup)
    assert "王说" not in Note.objects.get(pk=note.pk).body

    radio = soup.select_one(".conflict-choice input[value=both]")
    assert save(wang, note, form_data(html, **{radio["name"]: "both"})).status_code == 302
    body = stored_text(Note.objects.get(pk=note.pk).body)
    assert "第 2 段：林说调度器每个周期挑一个 warp。\n第 2 段：王说调度器" in body
    assert "第三十段" in body and "<<<<<<<" not in body and ">>>>>>>" not in body


@pytest.mark.parametrize(
    ("choice", "kept", "gone"), [("theirs", "林说", "王说"), ("mine", "王说", "林说")]
)
def test_keeping_one_side(two_authors, choice, kept, gone):
    lin, wang = two_authors
    note = make_draft(body=BODY)
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    save(lin, note, {**lin_form, "body": BODY.replace("第 9 段：", "第 9 段：林说")})
    html, soup = refused(
        save(wang, note, {**wang_form, "body": BODY.replace("第 9 段：", "第 9 段：王说")})
    )
    name = soup.select_one(".conflict-choice input[type=radio]")["name"]
    assert save(wang, note, form_data(html, **{name: choice})).status_code == 302
    body = Note.objects.get(pk=note.pk).body
    assert kept in body and gone not in body and "[#1 " not in body


def test_nothing_the_author_wrote_is_lost(two_authors):
    lin, wang = two_authors
    note = make_draft(body=BODY)
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    save(lin, note, {**lin_form, "body": "林把全文换掉了。\n"})
    mine = BODY.replace("第 5 段：", "第 5 段：王的句子，").replace("第 20 段", "第二十段")
    html, soup = refused(save(wang, note, {**wang_form, "body": mine}))
    page_text = textarea(soup)
    for line in filter(None, mine.splitlines()):
        assert line in page_text  # in the form, in a place to choose
    copy = soup.select_one(".conflict-yours textarea")
    assert copy is not None and not copy.has_attr("name")  # shown, never posted
    assert copy.text.strip() == mine.strip()


def test_titles_merge_too(two_authors):
    lin, wang = two_authors
    note = make_draft(title="旧标题", body="正文\n")
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    save(lin, note, {**lin_form, "title": "林的标题"})

    # Wang left the title alone: lin's title comes into the form.
    html, soup = refused(save(wang, note, {**wang_form, "body": "王的正文\n"}))
    assert soup.find("input", attrs={"name": "title"})["value"] == "林的标题"
    assert textarea(soup) == "王的正文\n"

    # Both changed it: the form keeps wang's, and asks.
    wang_form = open_form(wang, note)
    save(lin, note, {**open_form(lin, note), "title": "林又改的标题"})
    html, soup = refused(save(wang, note, {**wang_form, "title": "王的标题"}))
    assert soup.find("input", attrs={"name": "title"})["value"] == "王的标题"
    choice = panel_of(soup).select_one(".conflict-choice")
    assert "林又改的标题" in choice.text
    assert {r["value"] for r in choice.select("input[type=radio]")} == {"theirs", "mine"}
    name = choice.select_one("input[type=radio]")["name"]
    assert save(wang, note, form_data(html, **{name: "theirs"})).status_code == 302
    assert Note.objects.get(pk=note.pk).title == "林又改的标题"


@pytest.mark.parametrize(
    ("language", "other_save", "field"),
    [
        ("en", "Published now (bulk action)", "Status"),
        ("zh-hans", "已立即发布（批量操作）", "状态"),
    ],
)
def test_other_fields_the_form_would_change_back_are_named(two_authors, other_save, field):
    lin, wang = two_authors
    note = make_draft(body="正文\n")
    wang_form = open_form(wang, note)
    lin.post(
        reverse("admin:blog_note_changelist"),
        {"action": "publish_now", "_selected_action": [note.pk]},
    )
    html, soup = refused(save(wang, note, {**wang_form, "body": "王的正文\n"}))
    panel = panel_of(soup)
    assert other_save in panel.select_one(".conflict-saves").text  # what the other save was
    assert field in panel.select_one(".conflict-others").text  # what the form would undo
    assert Note.objects.get(pk=note.pk).status == Status.PUBLISHED


def test_marker_lines_left_without_their_pair_are_refused_clearly(two_authors):
    lin, wang = two_authors
    note = make_draft(body=BODY)
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    save(lin, note, {**lin_form, "body": BODY.replace("第 4 段：", "第 4 段：林说")})
    html, soup = refused(
        save(wang, note, {**wang_form, "body": BODY.replace("第 4 段：", "第 4 段：王说")})
    )
    text = textarea(soup)
    broken = "".join(line for line in text.splitlines(True) if not line.startswith(">>>>>>>"))
    html, soup = refused(save(wang, note, form_data(html, body=broken)))
    assert "have lost their pair" in panel_of(soup).text
    assert "王说" not in Note.objects.get(pk=note.pk).body


def test_a_third_save_while_choosing_is_merged_again(two_authors):
    lin, wang = two_authors
    note = make_draft(body=BODY)
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    save(lin, note, {**lin_form, "body": BODY.replace("第 3 段：", "第 3 段：林说")})
    html, _soup = refused(
        save(wang, note, {**wang_form, "body": BODY.replace("第 3 段：", "第 3 段：王说")})
    )
    # Lin saves again while wang is choosing.
    save(lin, note, {**open_form(lin, note), "title": "林的新标题"})
    name = BeautifulSoup(html, "html.parser").select_one(".conflict-choice input")["name"]
    html, soup = refused(save(wang, note, form_data(html, **{name: "mine"})))
    assert soup.find("input", attrs={"name": "title"})["value"] == "林的新标题"
    assert "王说" in textarea(soup) and "林说" not in textarea(soup)
    assert save(wang, note, form_data(html)).status_code == 302
    stored = Note.objects.get(pk=note.pk)
    assert stored.title == "林的新标题" and "王说" in stored.body


def test_pages_merge_the_same_way(two_authors):
    lin, wang = two_authors
    page = make_page(title="关于", slug="about", body="我写 GPU。\n\n也写课程笔记。\n")
    lin_form, wang_form = open_form(lin, page), open_form(wang, page)
    save(lin, page, {**lin_form, "body": "我写 GPU 和系统。\n\n也写课程笔记。\n"})
    html, soup = refused(
        save(wang, page, {**wang_form, "body": "我写 GPU。\n\n也写课程笔记和随笔。\n"})
    )
    assert textarea(soup) == "我写 GPU 和系统。\n\n也写课程笔记和随笔。\n"
    assert save(wang, page, form_data(html)).status_code == 302
    assert stored_text(Page.objects.get(pk=page.pk).body) == textarea(soup).strip()
