"""The author's side of a translated pair in the admin: the list says which notes are behind
their translation or original (under each note's language, and a filter, in the list's one
query); a note that is
behind shows above its editor what changed in the other note since they were last in line,
block by block, in the admin's language; "Brought in line" clears it as a new revision; and
two boxes on the form say what a save means for the pair (it brings this note in line, or
needs no translation), so that a typo fixed in a translation does not hide a changed paragraph.

Forms are posted as a browser posts them (tests/test_conflict_screen.py's ``form_data``).
Texts of the admin are checked through gettext in the language of the request, so that the
Chinese admin is checked against the catalogue as it stands.
"""

import re

import pytest
from bs4 import BeautifulSoup
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from blog.authoring.translation_diff import word_diff
from blog.models import Language, Note
from blog.models.revisions import recording, versions_of
from blog.models.translations import link_translation
from tests.factories import author_with, make_note, make_tag
from tests.test_conflict_screen import form_data

pytestmark = pytest.mark.django_db

LANGUAGES = ["zh-hans", "en"]

ORIGINAL = """## 调度

GPU 上的 kernel 调度由 warp scheduler 完成，每个周期挑选一个 warp。

```cuda
__global__ void add(int *a) {
    a[0] += 1;
}
```

| 指标 | 数值 |
|---|---|
| SM | 108 |
| 带宽 | 1.5 TB/s |
"""

TRANSLATION = """## Scheduling

On a GPU, the warp scheduler schedules kernels: it picks one warp each cycle.

```cuda
__global__ void add(int *a) {
    a[0] += 1;
}
```

| Metric | Value |
|---|---|
| SM | 108 |
| Bandwidth | 1.5 TB/s |
"""


def in_language(language, message, **values):
    """``message`` as the admin shows it in ``language`` (the catalogue as it stands)."""
    with translation.override(language):
        text = translation.gettext(message)
    return text % values if values else text


def change_url(note):
    return reverse("admin:blog_note_change", args=[note.pk])


def bring_in_line_url(note):
    return reverse("admin:blog_note_bring_in_line", args=[note.pk])


def fresh(note):
    return Note.objects.get(pk=note.pk)


def open_page(client, note, language="en"):
    response = client.get(change_url(note), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def save(client, note, language="en", **changes):
    """Open ``note``'s change form and save it with ``changes`` (a box ticked: "on")."""
    page = open_page(client, note, language)
    response = client.post(
        change_url(note), form_data(page, **changes), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    return fresh(note)


def notice(html):
    return BeautifulSoup(html, "html.parser").select_one("section.translation-behind")


def changes_listed(html):
    """(title, before, now) of each block change the notice lists, as text."""
    listed = []
    for item in notice(html).select("li.block-change"):
        texts = [side.get_text() for side in item.select(".block-text, pre")]
        listed.append((item.h3.get_text(strip=True), texts))
    return listed


def marked(html, tag):
    """The words the notice marks as removed (``del``) or added (``ins``)."""
    return [element.get_text() for element in notice(html).select(f".block-text {tag}")]


@pytest.fixture
def pair(staff_user):
    """A Chinese original and its English translation (holding the link), written in the
    admin (so their texts are in the history), in line with each other."""
    with recording(staff_user, "written"):
        chinese = make_note(title="调度", slug="scheduling", body=ORIGINAL)
        english = make_note(
            title="Scheduling", slug="scheduling-en", language=Language.ENGLISH, body=TRANSLATION
        )
    link_translation(english, chinese)
    return fresh(chinese), fresh(english)


def edit_original(client, chinese, old, new):
    return save(client, chinese, body=fresh(chinese).body.replace(old, new))


# --- the change list ---------------------------------------------------------------------


def sync_states(client, language="en", query=""):
    response = client.get(
        reverse("admin:blog_note_changelist") + query, HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    states = {}
    for row in page.select("#result_list tbody tr"):
        state = row.select_one("td.field-language_and_sync .sync-state")
        states[row.select_one("th a").get_text(strip=True)] = state.get_text() if state else "-"
    return states


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_list_says_which_note_is_behind_and_behind_what(staff_client, pair, language):
    chinese, english = pair
    make_note(title="Alone")
    in_line = in_language(language, "In line")
    assert sync_states(staff_client, language) == {
        "调度": in_line,
        "Scheduling": in_line,
        "Alone": "-",
    }
    response = staff_client.get(
        reverse("admin:blog_note_changelist"), HTTP_ACCEPT_LANGUAGE=language
    )
    cell = BeautifulSoup(response.content, "html.parser").select_one("td.field-language_and_sync")
    with translation.override(language):
        languages = {str(label) for label in Language.labels}
    assert cell.contents[0] in languages  # the language first, the state under it

    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    assert sync_states(staff_client, language) == {
        "调度": in_line,
        "Scheduling": in_language(language, "Behind its original"),
        "Alone": "-",
    }
    save(staff_client, fresh(english), body=TRANSLATION.replace("each cycle", "every cycle"))
    # Now the original is behind its translation too (and the translation still behind).
    assert sync_states(staff_client, language)["调度"] == in_language(
        language, "Behind its translation"
    )


def test_the_filter_narrows_the_list_to_behind_in_line_or_alone(staff_client, pair):
    chinese, _english = pair
    make_note(title="Alone")
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    assert set(sync_states(staff_client, query="?sync=behind")) == {"Scheduling"}
    assert set(sync_states(staff_client, query="?sync=in-line")) == {"调度"}
    assert set(sync_states(staff_client, query="?sync=none")) == {"Alone"}
    page = staff_client.get(reverse("admin:blog_note_changelist"), HTTP_ACCEPT_LANGUAGE="en")
    filters = BeautifulSoup(page.content, "html.parser").select_one("#changelist-filter")
    assert {"Behind", "In line", "No translation"} <= {a.get_text() for a in filters("a")}


def test_the_list_s_queries_do_not_grow_with_its_notes(staff_client, staff_user):
    def queries():
        url = reverse("admin:blog_note_changelist")
        with CaptureQueriesContext(connection) as captured:
            assert staff_client.get(url).status_code == 200
        return len(captured)

    def add_pair(n):
        original = make_note(title=f"原文 {n}", body=f"第 {n} 段。\n")
        translation_ = make_note(title=f"Copy {n}", language=Language.ENGLISH, body=f"Part {n}.\n")
        link_translation(translation_, original)
        original.body = f"第 {n} 段，改了。\n"
        original.save()  # the translation falls behind

    add_pair(0)
    make_note(title="Alone 0")
    queries()  # the first request fills the caches (site settings, session)
    few = queries()
    for n in range(1, 6):
        add_pair(n)
        make_note(title=f"Alone {n}")
    assert queries() == few


# --- the notice above the editor: what changed --------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_changed_paragraph_shows_the_words_that_changed(staff_client, pair, language):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期挑选一个 warp", "每个时钟周期挑选两个 warp")
    html = open_page(staff_client, english, language)
    box = notice(html)
    assert box is not None
    assert box.h2.get_text(strip=True) == in_language(language, "This note is behind its original")
    [(title, (before, now))] = changes_listed(html)
    paragraph = in_language(language, "Paragraph")
    assert title == in_language(language, "%(kind)s changed", kind=paragraph)
    assert "每个周期挑选一个 warp" in before and "每个时钟周期挑选两个 warp" in now
    # Chinese is compared character by character: only what changed is marked.
    assert marked(html, "ins") == ["时钟", "两"]
    assert marked(html, "del") == ["一"]
    # Where the other note is, and when its text changed.
    link = box.find("a", href=change_url(chinese))
    assert link is not None and "调度" in link.get_text()
    with translation.override(language):
        from django.utils import formats, timezone

        changed = formats.date_format(
            timezone.localtime(fresh(chinese).text_changed_at), "DATETIME_FORMAT"
        )
    assert changed in box.get_text()


def test_a_changed_heading_code_block_and_table_row_are_shown_by_block(staff_client, pair):
    chinese, english = pair
    body = (
        fresh(chinese)
        .body.replace("## 调度", "## Warp 调度")
        .replace("a[0] += 1;", "a[0] += 2;")
        .replace("| 带宽 | 1.5 TB/s |", "| 带宽 | 2.0 TB/s |")
    )
    save(staff_client, chinese, body=body)
    html = open_page(staff_client, english)
    titles = [title for title, _texts in changes_listed(html)]
    assert titles == ["Heading changed", "Code block changed", "Table changed"]
    assert "Warp" in marked(html, "ins")[0]
    code = notice(html).select_one("pre.text-diff")
    assert [d.get_text() for d in code("del")] == ["−     a[0] += 1;"]
    assert [i.get_text() for i in code("ins")] == ["+     a[0] += 2;"]
    rows = notice(html).select("table.row-changes tbody tr")
    assert len(rows) == 1  # the changed row only, not the whole table
    assert (
        "1.5" in rows[0].select("td")[0].get_text() and "2.0" in rows[0].select("td")[1].get_text()
    )
    assert [d.get_text() for d in rows[0].select("del")] == ["1.5"]


def test_added_and_removed_blocks_are_listed_where_they_are(staff_client, pair):
    chinese, english = pair
    body = fresh(chinese).body.replace(
        "| 指标 | 数值 |", "新的一段：带宽决定上限。\n\n| 指标 | 数值 |"
    )
    body = re.sub(r"```cuda.*?```\n", "", body, flags=re.S)
    save(staff_client, chinese, body=body)
    html = open_page(staff_client, english)
    assert [title for title, _ in changes_listed(html)] == [
        "Code block removed",
        "Paragraph added",
    ]


@pytest.mark.parametrize(
    "changes",
    [
        {"body": ORIGINAL.replace("完成，每个周期", "完成，\n每个周期") + "\n\n"},  # re-wrapped
        {"title": "调度（修订）"},
        {"tags": "CUDA"},
    ],
    ids=["whitespace", "title", "tags"],
)
def test_no_notice_after_an_edit_that_does_not_change_the_text(staff_client, pair, changes):
    chinese, english = pair
    make_tag(name="CUDA", name_zh="")
    save(staff_client, chinese, **changes)
    assert notice(open_page(staff_client, english)) is None
    assert sync_states(staff_client)["Scheduling"] == "In line"


def test_an_imported_pair_lists_the_blocks_it_never_saw(staff_client):
    # No revision holds the text the translation was in line with (made outside the admin).
    chinese = make_note(title="调度", body=ORIGINAL)
    english = make_note(title="Scheduling", language=Language.ENGLISH, body=TRANSLATION)
    link_translation(english, chinese)
    chinese.body = ORIGINAL.replace("## 调度", "## 调度器").replace("| SM | 108 |\n", "")
    chinese.save()
    html = open_page(staff_client, english)
    assert "is not in the other note's history" in notice(html).get_text()
    assert "2 blocks of the earlier text are gone." in notice(html).get_text()
    assert [title for title, _ in changes_listed(html)] == [
        "Heading changed or new",
        "Table changed or new",
    ]


def test_a_note_in_line_or_without_translation_has_no_notice(staff_client, pair):
    chinese, english = pair
    assert notice(open_page(staff_client, english)) is None
    assert notice(open_page(staff_client, make_note(title="Alone"))) is None


# --- "Brought in line" --------------------------------------------------------------------


def bring_in_line(client, note, language="en", **data):
    token = BeautifulSoup(open_page(client, note, language), "html.parser").select_one(
        "form.bring-in-line input[name=text_token]"
    )["value"]
    return client.post(
        bring_in_line_url(note), {"text_token": token, **data}, HTTP_ACCEPT_LANGUAGE=language
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_brought_in_line_clears_the_notice_as_a_revision(staff_client, pair, language):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    before = versions_of(english).count()
    response = bring_in_line(staff_client, english, language)
    assert response.status_code == 302 and response.url == change_url(english)
    english = fresh(english)
    assert english.synced_hashes == fresh(chinese).block_hashes
    assert versions_of(english).count() == before + 1
    newest = versions_of(english).first()
    assert newest.revision.user.username == "author"
    assert newest.revision.get_comment() == in_language(
        language, "Brought in line with its original"
    )
    assert newest.field_dict["synced_hashes"] == english.synced_hashes
    page = staff_client.get(change_url(english), HTTP_ACCEPT_LANGUAGE=language)
    assert notice(page.content.decode()) is None
    [message] = [str(m) for m in page.context["messages"]]
    assert message == in_language(
        language,
        "“%(title)s” is in line with “%(other)s” again.",
        title="Scheduling",
        other="调度",
    )


def test_brought_in_line_refuses_a_text_changed_again_since_the_page(staff_client, pair):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    page = open_page(staff_client, english)
    token = BeautifulSoup(page, "html.parser").select_one("input[name=text_token]")["value"]
    edit_original(staff_client, chinese, "一个 warp", "两个 warp")  # not seen on that page
    response = staff_client.post(bring_in_line_url(english), {"text_token": token})
    assert response.status_code == 302
    assert fresh(english).synced_hashes != fresh(chinese).block_hashes  # still behind


def test_brought_in_line_is_a_post_by_an_author_who_may_change_the_note(pair):
    chinese, english = pair
    chinese.body += "\n新的一段。\n"
    chinese.save()
    reader = Client()
    reader.force_login(author_with("view_note", username="reader"))
    writer = Client()
    writer.force_login(author_with("view_note", "change_note", username="writer"))

    assert writer.get(bring_in_line_url(english)).status_code == 405
    # A reader of the admin sees what changed, without the button, and cannot post it.
    html = open_page(reader, english)
    assert notice(html) is not None and notice(html).select_one("form.bring-in-line") is None
    assert reader.post(bring_in_line_url(english), {}).status_code == 403
    assert fresh(english).synced_hashes != fresh(chinese).block_hashes
    assert writer.post(bring_in_line_url(Note(pk=99999)), {}).status_code == 404
    assert bring_in_line(writer, english).status_code == 302
    assert fresh(english).synced_hashes == fresh(chinese).block_hashes


# --- the two boxes on the form --------------------------------------------------------------


def boxes(html):
    form = BeautifulSoup(html, "html.parser").find("form", id="note_form")
    return {
        box["name"]: form.find("label", attrs={"for": box["id"]}).get_text(strip=True)
        for box in form.select("input[type=checkbox]")
        if box["name"] in ("in_line", "no_translation_needed")
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_boxes_are_on_a_note_with_a_translation_only(staff_client, pair, language):
    chinese, english = pair
    assert boxes(open_page(staff_client, english, language)) == {
        "in_line": in_language(language, "This edit brings it in line with its original"),
        "no_translation_needed": in_language(language, "No translation needed (a small fix)"),
    }
    assert boxes(open_page(staff_client, chinese, language))["in_line"] == in_language(
        language, "This edit brings it in line with its translation"
    )
    assert boxes(open_page(staff_client, make_note(title="Alone"), language)) == {}


def test_saving_the_translation_does_not_clear_its_notice_by_itself(staff_client, pair):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    # A typo fixed in the translation: the changed paragraph of the original is still shown.
    english = save(staff_client, english, body=TRANSLATION.replace("kernels", "kernels "))
    html = open_page(staff_client, english)
    assert notice(html) is not None and marked(html, "ins") == ["时钟"]
    save(staff_client, english, body=TRANSLATION.replace("On a GPU", "On a GPU,"))
    assert notice(open_page(staff_client, english)) is not None


def test_ticking_in_line_on_save_brings_the_note_in_line(staff_client, pair):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    english = save(
        staff_client,
        english,
        body=TRANSLATION.replace("each cycle", "each clock cycle"),
        in_line="on",
    )
    assert notice(open_page(staff_client, english)) is None
    assert english.synced_hashes == fresh(chinese).block_hashes
    # And the original is in line with the new translation: nothing to do on its side.
    assert notice(open_page(staff_client, chinese)) is None
    assert versions_of(english).first().field_dict["synced_hashes"] == english.synced_hashes


def test_ticking_in_line_alone_is_a_revision_that_says_so(staff_client, pair):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    save(staff_client, english, in_line="on")
    assert notice(open_page(staff_client, english)) is None
    newest = versions_of(english).first()
    assert newest.revision.get_comment() == "Brought in line with its original"


def test_no_translation_needed_keeps_the_translation_in_line(staff_client, pair):
    chinese, english = pair
    save(
        staff_client,
        chinese,
        body=ORIGINAL.replace("每个周期", "每个周期，"),
        no_translation_needed="on",
    )
    assert notice(open_page(staff_client, english)) is None
    assert fresh(english).synced_hashes == fresh(chinese).block_hashes
    # Without the box, the same kind of edit puts the translation behind.
    save(staff_client, chinese, body=ORIGINAL.replace("每个周期", "每个周期。"))
    assert notice(open_page(staff_client, english)) is not None


def test_a_stale_form_with_a_box_ticked_is_refused_and_records_nothing(staff_client, pair):
    chinese, english = pair
    edit_original(staff_client, chinese, "每个周期", "每个时钟周期")
    stale = form_data(open_page(staff_client, english), in_line="on")
    save(staff_client, english, title="Scheduling warps")  # another save since
    response = staff_client.post(change_url(english), stale)
    assert response.status_code == 200  # the conflict screen, nothing saved
    assert 'class="edit-conflict"' in response.content.decode()
    assert fresh(english).synced_hashes != fresh(chinese).block_hashes


# --- the diff itself ------------------------------------------------------------------------


def test_words_are_compared_whole_in_latin_text_and_by_character_in_chinese():
    before, after = word_diff("It picks one warp each cycle.", "It picks two warps each cycle.")
    assert [s.text for s in before if s.mark] == ["one", "warp"]
    assert [s.text for s in after if s.mark] == ["two", "warps"]
    before, after = word_diff("调度由硬件完成", "调度由软件完成")
    assert [s.text for s in before if s.mark] == ["硬"]
    assert [s.text for s in after if s.mark] == ["软"]
    # A space added between Chinese and Latin is not a change.
    before, after = word_diff("GPU上的调度", "GPU 上的调度")
    assert not [s for s in before + after if s.mark]
