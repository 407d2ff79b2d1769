"""Glossary terms in notes as readers get them: marked as the note renders (never per request),
recorded as the note's TermUse rows, switched off per note, rendered again in the background
when the glossary changes, and carried into feeds without their tooltips."""

from datetime import timedelta
from io import StringIO

import feedparser
import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from blog.models import Language, Note, Term, TermUse, term_matching
from blog.rendering.feed_html import feed_html
from tests.background import run_queued_tasks
from tests.factories import make_note

pytestmark = pytest.mark.django_db


def make_term(english="warp", chinese="线程束", **kwargs):
    kwargs.setdefault("definition_en", "A group of 32 threads that run together.")
    kwargs.setdefault("definition_zh", "一同执行的 32 个线程。\n\n第二段。")
    return Term.objects.create(english=english, chinese=chinese, **kwargs)


def marks(html):
    """(text, href, tip text, tip lang) of each marked term."""
    soup = BeautifulSoup(html, "html.parser")
    return [
        (
            term.a.get_text(),
            term.a["href"],
            tip.get_text() if (tip := term.select_one(".term-tip")) else None,
            tip["lang"] if tip else None,
        )
        for term in soup.select("span.term")
    ]


def stored(note):
    return Note.objects.get(pk=note.pk)


def used(note):
    return set(TermUse.objects.filter(note=note).values_list("term__slug", flat=True))


def test_a_chinese_note_marks_its_terms_with_the_chinese_glossary_and_definition():
    make_term()
    note = make_note(body="## 调度\n\n每个线程束都有 32 个线程。\n")
    assert marks(stored(note).body_html) == [
        ("线程束", "/glossary/#warp", "一同执行的 32 个线程。", "zh-Hans")
    ]


def test_an_english_note_links_the_english_glossary():
    make_term(definition_en="")  # no English definition: the Chinese one, marked as Chinese
    note = make_note(language=Language.ENGLISH, body="Each warp runs 32 threads.")
    assert marks(stored(note).body_html) == [
        ("warp", "/en/glossary/#warp", "一同执行的 32 个线程。", "zh-Hans")
    ]


def test_the_page_shows_the_marked_body(client):
    make_term()
    note = make_note(body="每个线程束都有 32 个线程。")
    page = client.get(note.get_absolute_url()).content.decode()
    assert 'class="term-tip" role="tooltip" id="term-warp-1"' in page


def test_search_text_excerpt_and_parallel_blocks_stay_the_text():
    make_term()
    original = make_note(body="每个线程束都有 32 个线程。", slug="zh")
    translation = make_note(
        language=Language.ENGLISH, body="Each warp has 32 threads.", translation=original
    )
    translation.render()
    original = stored(original)
    original.render()
    for note in (stored(original), stored(translation)):
        assert "term" in note.body_html
        assert "一同执行" not in note.plain_text + note.excerpt
        assert "A group" not in note.plain_text + note.excerpt
        assert note.parallel_blocks and "term" not in str(note.parallel_blocks)


def test_the_author_can_switch_marks_off_and_on_again():
    make_term()
    note = make_note(body="每个线程束都有 32 个线程。", marks_terms=False)
    assert marks(stored(note).body_html) == []
    assert used(note) == {"warp"}  # still a note that uses the term
    note = stored(note)
    note.marks_terms = True
    note.save()
    assert len(marks(stored(note).body_html)) == 1
    note.marks_terms = False
    note.save(update_fields=["marks_terms"])
    assert marks(stored(note).body_html) == []


def test_term_use_rows_follow_the_text_and_only_changes_are_written():
    make_term()
    make_term(english="occupancy", chinese="占用率")
    note = make_note(body="线程束与占用率。")
    assert used(note) == {"warp", "occupancy"}

    note = stored(note)
    note.body = "只剩占用率。"
    note.save()
    assert used(note) == {"occupancy"}

    note = stored(note)
    note.body = "仍然只有占用率，换了说法。"
    with CaptureQueriesContext(connection) as queries:
        note.save()
    writes = [q["sql"] for q in queries if "blog_termuse" in q["sql"] and "SELECT" not in q["sql"]]
    assert writes == []
    assert used(note) == {"occupancy"}


def test_a_term_only_in_code_or_a_heading_is_not_used():
    make_term()
    note = make_note(body="## warp\n\n`warp` and\n\n```\nwarp\n```\n")
    assert used(note) == set() and marks(stored(note).body_html) == []


def test_rerender_builds_the_matcher_once_for_all_notes():
    make_term()
    make_term(english="occupancy", chinese="占用率")
    notes = [make_note(body=f"线程束 {n} 与占用率。") for n in range(6)]
    Note.objects.update(body_html="<p>stale</p>")
    term_matching.forget()  # as in a fresh process

    with CaptureQueriesContext(connection) as queries:
        call_command("rerender", stdout=StringIO())

    # The glossary read whole, in the matcher's order (rerender's own pass over the terms,
    # to render their definitions, reads them by primary key).
    builds = [
        q["sql"]
        for q in queries
        if 'FROM "blog_term"' in q["sql"] and q["sql"].endswith('ORDER BY "blog_term"."slug" ASC')
    ]
    assert len(builds) == 1, builds
    assert all(len(marks(stored(note).body_html)) == 2 for note in notes)


@pytest.mark.django_db(transaction=True)
def test_a_glossary_change_re_renders_the_notes_it_concerns_in_the_background():
    long_ago = timezone.now() - timedelta(days=30)
    uses = make_note(body="每个线程束都有 32 个线程。", slug="uses")
    variant = make_note(body="一个 warp 束里有 32 个线程。", slug="variant")
    english = make_note(language=Language.ENGLISH, body="A Warp has 32 threads.", slug="en")
    unrelated = make_note(body="与术语无关。", slug="unrelated")
    Note.objects.update(updated_at=long_ago)
    unrelated_html = stored(unrelated).body_html

    term = make_term()  # a new term: notes written before it get marked, later
    assert marks(stored(uses).body_html) == []  # nothing during the save
    run_queued_tasks()
    assert [m[0] for m in marks(stored(uses).body_html)] == ["线程束"]
    assert [m[0] for m in marks(stored(english).body_html)] == ["Warp"]
    assert used(uses) == used(english) == {"warp"} and used(unrelated) == set()

    term.chinese_variants = "warp 束"  # a new accepted form, in a note that used no term
    term.save()
    run_queued_tasks()
    assert [m[0] for m in marks(stored(variant).body_html)] == ["warp 束"]

    term.definition_zh = "新的定义。"
    term.save()
    run_queued_tasks()
    assert marks(stored(uses).body_html)[0][2] == "新的定义。"

    term.delete()
    run_queued_tasks()
    for note in (uses, variant, english):
        assert marks(stored(note).body_html) == [] and used(note) == set()
    assert stored(unrelated).body_html == unrelated_html
    assert set(Note.objects.values_list("updated_at", flat=True)) == {long_ago}


@pytest.mark.django_db(transaction=True)
def test_saving_a_term_unchanged_queues_nothing_and_one_transaction_queues_one_task():
    rerenders = DBTaskResult.objects.filter(task_path__endswith=".rerender_for_terms")
    term = make_term()
    assert rerenders.count() == 1
    term.explained_in.add(make_note(body="讲线程束。"))
    term.save()  # nothing that marks it changed
    assert rerenders.count() == 1
    with transaction.atomic():
        make_term(english="occupancy", chinese="占用率")
        make_term(english="tensor core", chinese="")
    assert rerenders.count() == 2


def test_feeds_carry_the_terms_without_their_tooltips(client):
    make_term(definition_zh="在GPU上一同执行的线程。")  # the tip holds a span of its own
    note = make_note(body="每个线程束都有 32 个线程，另见 `code`。")
    body_html = stored(note).body_html
    assert '<span class="autospace">GPU</span>上一同执行' in body_html

    entry = feed_html(body_html, "https://blog.example/notes/x/")
    soup = BeautifulSoup(entry, "html.parser")
    assert soup.select(".term-tip") == [] and "一同执行" not in entry
    assert soup.select_one("a.term-link")["href"] == "https://blog.example/glossary/#warp"
    assert not soup.select("[aria-describedby]")
    assert soup.get_text() == "每个线程束都有 32 个线程，另见 code。"

    feed = feedparser.parse(client.get(reverse("feeds:all-atom")).content)
    content = feed.entries[0].content[0].value
    assert "线程束" in content and "一同执行" not in content and "term-tip" not in content


def test_a_glossary_of_thousands_of_forms_re_renders_the_notes_holding_one():
    """A glossary import sends every term's forms at once: more than SQLite's expression depth
    (1,000) in one OR of conditions."""
    from blog.background.term_rerender import rerender_for_terms

    note = make_note(title="长文", body="每个线程束都在等待 occupancy 提升。", marks_terms=True)
    Term.objects.create(english="warp", chinese="线程束")
    Note.objects.filter(pk=note.pk).update(body_html="<p>stale</p>")
    forms = [f"form{number}" for number in range(1500)] + ["线程束"]
    rerender_for_terms.func([], forms)
    assert "term-link" in Note.objects.get(pk=note.pk).body_html


def test_the_editor_preview_marks_terms_as_the_page_will_when_the_form_says_so(staff_client):
    Term.objects.create(english="warp", chinese="线程束", definition_zh="32 个线程。")
    url = reverse("admin:blog_note_editor_preview")
    body = {"content": "每个线程束有 32 个线程。", "language": "zh-hans"}
    marked = staff_client.post(url, {**body, "marks_terms": "1"}).content.decode()
    assert 'class="term-link"' in marked and "32 个线程。" in marked
    assert 'class="term-link"' not in staff_client.post(url, body).content.decode()
