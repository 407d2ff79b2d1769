"""A check while writing (issue 21): a translation's glossary terms against the other note.

Beside the editor, every glossary term of the other note whose counterpart is missing from the
paragraph that translates it, or is there under a form the glossary does not accept (束 where
the glossary says 线程束), is a warning, with the paragraph it is in — and never a refusal to
save. The change list has the count as a column and a filter, kept up to date when either
note of a pair is saved and when the glossary changes.

The admin's texts are checked through gettext in the language of the request (the catalogue
as it stands).
"""

import json

import pytest
from bs4 import BeautifulSoup
from django.db import connection
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from django_tasks_db.models import DBTaskResult

from blog.authoring import term_check
from blog.authoring.term_check import MISSING, OTHER_FORM, check_terms
from blog.models import Language, Note, Term
from blog.models.translations import link_translation
from tests.background import run_queued_tasks
from tests.factories import author_with, make_note
from tests.test_conflict_screen import form_data

pytestmark = pytest.mark.django_db

LANGUAGES = ["zh-hans", "en"]
ZH, EN = Language.CHINESE, Language.ENGLISH


@pytest.fixture(autouse=True)
def glossary_state():
    """The glossary's index is built per version (count, latest change) and process: tests
    that roll their terms back must not meet another test's index."""
    term_check._indexes.clear()
    yield
    term_check._indexes.clear()


NOTE_SAVED = "blog.authoring.term_warnings.note_saved"


def test_the_app_connects_the_receivers():
    # Whatever saves a note, its count follows: blog.reactions connects the receiver.
    assert any(key[0] == NOTE_SAVED for key, *_ in post_save.receivers)


@pytest.fixture
def glossary(db):
    return {
        "warp": Term.objects.create(
            english="warp", chinese="线程束", chinese_variants="warp 束", slug="warp"
        ),
        "occupancy": Term.objects.create(english="occupancy", chinese="占用率", slug="occupancy"),
        "shared-memory": Term.objects.create(
            english="shared memory", chinese="共享内存", slug="shared-memory"
        ),
        "memory": Term.objects.create(english="memory", chinese="内存", slug="memory"),
        "tensor-core": Term.objects.create(
            english="tensor core", chinese="张量核心", keep_in_english=True, slug="tensor-core"
        ),
        "wgmma": Term.objects.create(english="wgmma", english_variants="WGMMA", slug="wgmma"),
    }


def warnings(text, other, language=ZH, other_language=EN):
    return [
        (w.term.slug, w.kind, w.found) for w in check_terms(text, language, other, other_language)
    ]


# --- the check ------------------------------------------------------------------------------


def test_a_term_rendered_by_part_of_its_form_is_under_a_form_the_glossary_does_not_accept(
    glossary,
):
    english = "Each warp has 32 threads.\n\nOccupancy is not everything."
    chinese = "每个束有 32 个线程。\n\n占用率不是一切。"
    [warning] = check_terms(chinese, ZH, english, EN)
    assert (warning.term.slug, warning.kind, warning.found) == ("warp", OTHER_FORM, "束")
    assert warning.used == "warp" and warning.expected == ("线程束", "warp 束")
    # With the paragraph of the other note it is in, and the one here that translates it.
    assert str(warning.other_paragraph) == "Each warp has 32 threads."
    assert warning.other_paragraph.mark == "warp"
    assert (warning.here_paragraph.before, warning.here_paragraph.mark) == ("每个", "束")
    # The accepted form, or an accepted variant, clears it.
    assert warnings("每个线程束有 32 个线程。\n\n占用率不是一切。", english) == []
    assert warnings("每个 warp 束有 32 个线程。\n\n占用率不是一切。", english) == []


def test_a_term_missing_from_the_paragraph_that_translates_it_is_missing(glossary):
    english = "## Occupancy\n\nHigher occupancy hides latency.\n\nEach warp waits."
    chinese = "## 占用率\n\n更高的占用率可以隐藏延迟。\n\n每个都在等。"
    [warning] = check_terms(chinese, ZH, english, EN)
    assert (warning.term.slug, warning.kind, warning.found) == ("warp", MISSING, "")
    assert str(warning.other_paragraph) == "Each warp waits."
    assert str(warning.here_paragraph) == "每个都在等。"
    # Used in another paragraph only, it is still missing where it belongs.
    moved = "## 占用率\n\n更高的占用率让线程束可以隐藏延迟。\n\n每个都在等。"
    assert warnings(moved, english) == [("warp", MISSING, "")]


def test_a_term_kept_in_english_may_stay_english_in_chinese_and_one_not_kept_may_not(glossary):
    english = "The tensor core runs the matrix product.\n\nA warp issues it."
    chinese = "tensor core 执行矩阵乘。\n\n由一个 warp 发射。"
    assert warnings(chinese, english) == [("warp", OTHER_FORM, "warp")]
    # A term with no Chinese form at all is written in English in both.
    assert warnings("用 wgmma 指令。", "With the WGMMA instruction.") == []


def test_terms_in_code_math_and_link_addresses_are_left_alone(glossary):
    english = (
        "Nothing to translate here: `warp_id`, $\\text{occupancy}$ and "
        "[the guide](https://example.com/shared-memory).\n\n"
        "```cuda\nint warp = threadIdx.x / 32;  // one warp\n```\n\n"
        "$$\n\\text{occupancy} = \\frac{a}{b}\n$$\n"
    )
    chinese = "这里没有术语：`warp_id`、$\\text{occupancy}$ 和[指南](https://example.com/x)。\n\n"
    chinese += (
        "```cuda\nint warp = threadIdx.x / 32;\n```\n\n$$\n\\text{occupancy} = \\frac{a}{b}\n$$\n"
    )
    assert warnings(chinese, english) == []
    # Nor does a form in code here stand for the term in the prose of the other note.
    assert warnings("`线程束` 和 `warp`。", "Each warp.") == [("warp", MISSING, "")]


def test_a_chinese_term_is_found_inside_a_sentence_without_spaces(glossary):
    chinese = "每个线程束都在等待共享内存的数据返回。"
    english = "Each warp waits for shared memory."
    assert warnings(chinese, english) == []
    # From the Chinese side: the English translation has to say it.
    found = check_terms("Each one waits for shared memory.", EN, chinese, ZH)
    assert [(w.term.slug, w.used, w.kind) for w in found] == [("warp", "线程束", MISSING)]


def test_english_terms_match_whole_words_plurals_included(glossary):
    chinese = "线程束调度。"
    assert warnings("Warps are scheduled.", chinese, EN, ZH) == []
    assert warnings("Warpage is not a word here.", chinese, EN, ZH) == [("warp", MISSING, "")]
    # "." is no letter: wgmma is used in wgmma.mma_async (written outside code).
    assert warnings("它调用 wgmma.mma_async。", "It calls wgmma.mma_async.") == []


def test_the_longest_form_wins_and_its_head_alone_is_another_form(glossary):
    english = "Shared memory sits beside the L1 cache."
    # "memory" inside "shared memory" is no use of the term memory.
    assert warnings("共享内存位于 L1 缓存旁边。", english) == []
    # "内存" alone is the end of 共享内存: written as another form.
    assert warnings("内存位于 L1 缓存旁边。", english) == [("shared-memory", OTHER_FORM, "内存")]


def test_nothing_to_check_without_a_glossary_or_in_one_language(db):
    assert check_terms("每个束。", ZH, "Each warp.", EN) == []
    Term.objects.create(english="warp", chinese="线程束")
    assert check_terms("Each warp.", EN, "Each warp.", EN) == []


# --- the panel and its endpoint ---------------------------------------------------------------

ORIGINAL = "## 调度\n\n每个线程束都由调度器挑选。\n\n占用率不是越高越好。\n"
TRANSLATION = (
    "## Scheduling\n\nEach warp is picked by its scheduler.\n\n"
    "Higher occupancy is not always better.\n"
)


@pytest.fixture
def pair(glossary):
    chinese = make_note(title="调度", slug="scheduling", body=ORIGINAL)
    english = make_note(title="Scheduling", slug="scheduling-en", language=EN, body=TRANSLATION)
    link_translation(english, chinese)
    return fresh(chinese), fresh(english)


def fresh(note):
    return Note.objects.get(pk=note.pk)


def check_url(note):
    return reverse("admin:blog_note_term_check", args=[note.pk])


def in_language(language, message, **values):
    with translation.override(language):
        text = translation.gettext(message)
    return text % values if values else text


def post_check(client, note, body, admin_language="en", **data):
    response = client.post(
        check_url(note), {"body": body, **data}, HTTP_ACCEPT_LANGUAGE=admin_language
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return json.loads(response.content)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_panel_lists_the_warnings_of_the_text_being_typed(staff_client, pair, language):
    chinese, _english = pair
    typed = ORIGINAL.replace("每个线程束", "每个束").replace("占用率", "资源")
    answer = post_check(staff_client, chinese, typed, language)
    assert answer["count"] == 2
    assert [(w["term"], w["kind"], w["found"]) for w in answer["warnings"]] == [
        ("warp", OTHER_FORM, "束"),
        ("occupancy", MISSING, ""),
    ]
    with translation.override(language):
        assert answer["summary"] == translation.ngettext(
            "%(count)d term warning", "%(count)d term warnings", 2
        ) % {"count": 2}
    html = BeautifulSoup(answer["html"], "html.parser")
    items = html.select("li.term-warning")
    assert [item["class"][1] for item in items] == [
        "term-warning-other-form",
        "term-warning-missing",
    ]
    what = items[0].select_one(".term-warning-what").get_text(" ", strip=True)
    with translation.override(language):
        expected = translation.gettext(
            "“%(used)s” is written “%(found)s” here, where the glossary says %(expected)s."
        ) % {"used": "warp", "found": "束", "expected": "线程束 / warp 束"}
    assert what == expected
    # The paragraph of the other note, the term marked, in its language; the one here too.
    other, here = items[0].select("blockquote.term-paragraph")
    assert other["lang"] == "en" and other.mark.get_text() == "warp"
    assert here["lang"] == "zh-Hans" and here.mark.get_text() == "束"
    assert in_language(language, "In the other note:") in items[0].get_text()
    # What is saved did not change: the panel checks the text as typed.
    assert fresh(chinese).body == ORIGINAL


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_text_in_line_with_the_glossary_has_no_warnings(staff_client, pair, language):
    _chinese, english = pair
    answer = post_check(staff_client, english, TRANSLATION, language)
    assert (answer["count"], answer["warnings"]) == (0, [])
    assert answer["summary"] == in_language(language, "No term warnings.")
    assert (
        in_language(
            language,
            "Every glossary term of the other note is here, in a form the glossary accepts.",
        )
        in BeautifulSoup(answer["html"], "html.parser").get_text()
    )


def test_the_language_chosen_in_the_form_is_the_one_checked(staff_client, pair):
    chinese, _english = pair
    # The form's language set to English by mistake: the note is checked as English text
    # against the English note, which is no check at all.
    answer = post_check(staff_client, chinese, "每个束。", language="en")
    assert answer["count"] == 0


def test_a_note_without_translation_has_nothing_to_check(staff_client, glossary):
    alone = make_note(title="独自", body="每个束。")
    answer = post_check(staff_client, alone, alone.body)
    assert answer["count"] == 0
    assert answer["summary"] == in_language(
        "en", "This note has no translation to check its terms against."
    )


def test_the_endpoint_is_a_post_by_an_author_who_may_change_the_note(client, pair):
    chinese, _english = pair
    url = check_url(chinese)
    # Anyone but staff: the admin's login page, as for the preview.
    response = client.post(url, {"body": "x"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
    reader = author_with("view_note", username="reader")
    client.force_login(reader)
    assert client.post(url, {"body": "x"}).status_code == 403
    writer = author_with("view_note", "change_note", username="writer")
    client.force_login(writer)
    assert client.get(url).status_code == 405
    assert client.post(url, {"body": "每个束。"}).status_code == 200
    missing = reverse("admin:blog_note_term_check", args=[999999])
    assert client.post(missing, {"body": "x"}).status_code == 404


def test_the_panel_is_on_the_form_of_a_note_with_a_translation_only(staff_client, pair):
    chinese, _english = pair
    page = BeautifulSoup(
        staff_client.get(reverse("admin:blog_note_change", args=[chinese.pk])).content,
        "html.parser",
    )
    panel = page.select_one("section#term-check")
    assert panel is not None and panel.has_attr("hidden")  # shown by its script
    assert panel["data-url"] == check_url(chinese)
    assert page.select_one('script[src*="js/term-check."]') is not None
    alone = make_note(title="独自")
    page = staff_client.get(reverse("admin:blog_note_change", args=[alone.pk])).content
    assert b"term-check" not in page


def test_warnings_never_refuse_a_save(staff_client, pair):
    chinese, _english = pair
    url = reverse("admin:blog_note_change", args=[chinese.pk])
    page = staff_client.get(url).content.decode()
    body = ORIGINAL.replace("每个线程束", "每个束")
    response = staff_client.post(url, form_data(page, body=body))
    assert response.status_code == 302
    assert fresh(chinese).body == body.strip()
    assert fresh(chinese).term_warnings == 1


# --- the stored count: the change list's column and filter --------------------------------------


def counts(*notes):
    return [fresh(note).term_warnings for note in notes]


def test_the_count_follows_a_save_of_either_note_and_moves_no_date(pair):
    chinese, english = pair
    assert counts(chinese, english) == [0, 0]
    updated = english.updated_at
    chinese.body = ORIGINAL.replace("每个线程束", "每个束")
    chinese.save()
    assert counts(chinese, english) == [1, 0]
    # The translation loses "occupancy": the original now misses nothing it has, but the
    # translation misses 占用率's counterpart.
    english = fresh(english)
    english.body = TRANSLATION.replace("occupancy", "utilisation")
    english.save()
    assert counts(chinese, english) == [1, 1]
    # Saving the original again counts the pair again, and the translation's date stays.
    chinese = fresh(chinese)
    chinese.body = ORIGINAL
    chinese.save()
    assert counts(chinese, english) == [0, 1]
    assert fresh(english).updated_at > updated  # its own save moved it…
    before = fresh(english).updated_at
    chinese.body = ORIGINAL.replace("每个线程束", "每个束")
    chinese.save()
    assert fresh(english).updated_at == before  # …the other's save does not


def test_the_count_follows_the_pair_being_linked_and_unlinked(staff_client, glossary):
    chinese = make_note(title="调度", body="每个束。")
    english = make_note(title="Scheduling", language=EN, body="Each warp.")
    assert counts(chinese, english) == [0, 0]
    link_translation(english, chinese)
    assert counts(chinese, english) == [1, 0]
    assert change_list(staff_client)[1] == {"调度": "1 term warning", "Scheduling": ""}
    link_translation(english, None)
    # No translation, nothing to check: the list shows no count, the filter finds neither.
    assert change_list(staff_client)[1] == {"调度": "", "Scheduling": ""}
    assert change_list(staff_client, "?terms=with")[1] == {}
    assert change_list(staff_client, "?terms=without")[1] == {}


def change_list(client, query="", language="en"):
    """The list's page, and each note's term warnings as its language cell says them ("" for
    none)."""
    response = client.get(
        reverse("admin:blog_note_changelist") + query, HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    said = {}
    for row in page.select("#result_list tbody tr"):
        line = row.select_one("td.field-language_and_sync .term-warnings")
        said[row.select_one("th a").get_text(strip=True)] = line.get_text() if line else ""
    return page, said


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_list_says_the_count_and_filters_by_it(staff_client, pair, language):
    chinese, _english = pair
    chinese.body = ORIGINAL.replace("每个线程束", "每个束").replace("占用率", "资源")
    chinese.save()
    alone = make_note(title="Alone", body="每个束。")
    Note.objects.filter(pk=alone.pk).update(term_warnings=1)  # left from a pair gone since
    page, said = change_list(staff_client, language=language)
    with translation.override(language):
        two = translation.ngettext("%(count)d term warning", "%(count)d term warnings", 2)
    assert said == {"调度": two % {"count": 2}, "Scheduling": "", "Alone": ""}
    filters = page.select_one("#changelist-filter")
    assert in_language(language, "term warnings") in filters.get_text()
    assert in_language(language, "With warnings") in filters.get_text()
    assert set(change_list(staff_client, "?terms=with")[1]) == {"调度"}
    assert set(change_list(staff_client, "?terms=without")[1]) == {"Scheduling"}


def test_the_list_s_queries_do_not_grow_with_counted_notes(staff_client, glossary):
    def queries(query):
        with CaptureQueriesContext(connection) as captured:
            assert (
                staff_client.get(reverse("admin:blog_note_changelist") + query).status_code == 200
            )
        return len(captured)

    pairs = []

    def add_pair():
        n = len(pairs)
        original = make_note(title=f"原文 {n}", body=f"第 {n} 个束。\n")
        copy = make_note(title=f"Copy {n}", language=EN, body=f"Warp {n}.\n")
        link_translation(copy, original)
        pairs.append(original.title)

    add_pair()
    for query in ("", "?terms=with"):
        queries(query)  # the first request fills the caches (site settings, session)
        few = queries(query)
        for _ in range(3):
            add_pair()
        assert queries(query) == few
    assert set(change_list(staff_client, "?terms=with")[1]) == set(pairs)


@pytest.mark.django_db(transaction=True)
def test_a_glossary_change_counts_every_pair_again_in_the_background():
    term = Term.objects.create(english="warp", chinese="线程块")  # a slip in the glossary
    chinese = make_note(title="调度", body="每个线程束。")
    english = make_note(title="Scheduling", language=EN, body="Each warp.")
    link_translation(english, chinese)
    alone = make_note(title="独自", body="每个束。")
    run_queued_tasks()
    assert counts(chinese, english) == [1, 0]
    updated = fresh(chinese).updated_at
    Note.objects.filter(pk=alone.pk).update(term_warnings=3)  # left from a pair gone since

    term.chinese = "线程束"
    term.save()  # queued, after the commit
    assert counts(chinese, english) == [1, 0]
    run_queued_tasks()
    assert counts(chinese, english, alone) == [0, 0, 0]
    assert fresh(chinese).updated_at == updated

    term.definition_en = "Thirty-two threads."
    term.save()  # no form changed: nothing to count again
    queued = DBTaskResult.objects.filter(task_path__endswith="recount_pairs").count()
    term.delete()
    run_queued_tasks()
    assert DBTaskResult.objects.filter(task_path__endswith="recount_pairs").count() == queued + 1
    chinese.body = "每个束。"
    chinese.save()
    assert counts(chinese, english) == [0, 0]  # no glossary, no warnings
