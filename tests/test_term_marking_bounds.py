"""Glossary terms are found in time linear in the text whatever the glossary holds: nested
terms (``x``, ``x x``, ``x x x``…) mark a long note, and check a translation, in well under a
second, and the longest form still wins at each place (blog/text/longest_forms.py)."""

import time

import pytest
from bs4 import BeautifulSoup

from blog.authoring.term_check import check_terms
from blog.authoring.term_index import GlossaryIndex
from blog.models import Language, Term
from blog.rendering.terms import TermEntry, TermMatcher
from blog.text import longest_forms

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

# CPU seconds (the process's own, so a busy machine does not fail the test); the quadratic
# matching took 25 s and more here.
BOUND = 2.0


def nested_entries(count):
    return [
        TermEntry(f"x{n:04d}", (" ".join(["x"] * n),), f"/glossary/#x{n:04d}")
        for n in range(1, count + 1)
    ]


def marks(html):
    """(marked text, slug) of each marked term."""
    soup = BeautifulSoup(html, "html.parser")
    return [(term.a.get_text(), term.a["href"].split("#")[1]) for term in soup.select(".term")]


@pytest.fixture(params=["c-automaton", "linear-automaton"])
def automaton(request, monkeypatch):
    """Both of longest_forms' automata: pyahocorasick's matches, and biji's own that answers
    when they are too many (forced here by allowing none)."""
    if request.param == "linear-automaton":
        monkeypatch.setattr(longest_forms, "MATCHES_PER_CHARACTER", 0)
    return request.param


def test_a_thousand_nested_terms_mark_a_40_kb_note_in_well_under_a_second():
    matcher = TermMatcher(nested_entries(1000))
    html = "<p>" + " ".join(["x"] * 20_000) + "</p>"  # 40 KB
    started = time.process_time()
    marked = matcher.mark(html)
    assert time.process_time() - started < BOUND
    # The longest term takes the first 1,000 x's; the rest are uses of the same one.
    assert marks(marked.html) == [(" ".join(["x"] * 1000), "x1000")]
    assert marked.used == {"x1000"}


def test_the_marks_of_nested_terms_are_the_longest(automaton):
    matcher = TermMatcher(nested_entries(3))
    html = "<p>x x x x x x x</p><h2>Next</h2><p>x x x x</p>"
    marked = matcher.mark(html)
    # Uses: the longest form at each place, the text after it read next, never inside it:
    # "x x x", "x x x", "x", then "x x x", "x". Each section marks its first use of each term.
    assert marks(marked.html) == [("x x x", "x0003"), ("x", "x0001")] * 2
    assert marked.used == {"x0003", "x0001"}


def test_a_longer_form_cut_off_by_a_letter_leaves_the_place_to_a_shorter_one(automaton):
    matcher = TermMatcher([*nested_entries(4), TermEntry("cuda", ("CUDA",), "/g#cuda")])
    matcher_core = TermMatcher([TermEntry("cuda-core", ("CUDA core",), "/g#cuda-core")])
    # "x x x x" would end inside "xy": "x x x" stands on its boundaries there.
    assert marks(matcher.mark("<p>x x x xy</p>").html) == [("x x x", "x0003")]
    assert marks(matcher.mark("<p>CUDA cores</p>").html) == [("CUDA", "cuda")]
    assert marks(matcher_core.mark("<p>CUDA cores</p>").html) == []


def test_a_longer_form_across_elements_leaves_the_place_to_a_shorter_one(automaton):
    matcher = TermMatcher(nested_entries(3))
    # A form is never half in <em>, nor reads into code: the shorter one before them is marked.
    assert marks(matcher.mark("<p>x x <em>x</em></p>").html) == [("x x", "x0002"), ("x", "x0001")]
    assert marks(matcher.mark("<p>x <code>x</code> x x</p>").html) == [
        ("x", "x0001"),
        ("x x", "x0002"),
    ]
    # Code's letters still bound the words beside it: "x" glued to code is no use.
    assert marks(matcher.mark("<p>x<code>x</code> x</p>").html) == [("x", "x0001")]


def test_both_automata_find_every_form_at_each_place_longest_first(monkeypatch):
    forms = longest_forms.LongestForms(
        [("x", 1), ("x x", 2), ("x x x", 3), ("x-y", 4), ("线程", 5), ("线程束", 6)]
    )
    text = "x x x-y xx 每个线程束 x x"
    answers = []
    for allowed in (1, 0):
        monkeypatch.setattr(longest_forms, "MATCHES_PER_CHARACTER", allowed)
        answers.append([(start, list(at)) for start, at in forms.find(text)])
    assert (
        answers[0]
        == answers[1]
        == [
            (0, [(5, 3), (3, 2), (1, 1)]),
            (2, [(3, 2), (1, 1)]),
            (4, [(3, 4), (1, 1)]),  # "x-y": the "x" of it is a word of its own, too
            (13, [(3, 6), (2, 5)]),
            (17, [(3, 2), (1, 1)]),
            (19, [(1, 1)]),
        ]
    )


def test_the_term_check_with_600_nested_terms_is_quick():
    index = GlossaryIndex(
        Term(slug=f"x{n:04d}", english=" ".join(["x"] * n)) for n in range(1, 601)
    )
    other = "\n\n".join(" ".join(["x"] * 200) for _ in range(58))  # 23 KB of English
    here = "\n\n".join("这是一段没有术语的中文。" * 10 for _ in range(58))
    started = time.process_time()
    warnings = check_terms(here, Language.CHINESE, other, Language.ENGLISH, index)
    assert time.process_time() - started < BOUND
    # Each paragraph uses the 200-x term once, and this note lacks it in each.
    assert len(warnings) == 58
    assert {warning.term.slug for warning in warnings} == {"x0200"}
