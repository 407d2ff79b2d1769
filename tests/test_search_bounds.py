"""What one search costs is bounded whatever the glossary holds and however long the notes."""

import time

import pytest

from blog.models import Term
from blog.search.glossary import MAX_SPELLINGS, build_glossary, expand
from blog.search.highlight import snippet
from blog.search.text import parse_query

pytestmark = pytest.mark.backend_independent


def test_a_glossary_of_nested_forms_expands_a_word_boundedly_and_snippets_stay_quick():
    nested = [Term(english=" ".join(["x"] * n), slug=f"x{n}") for n in range(1, 1001)]
    query = expand(parse_query("x"), build_glossary(nested))
    assert len(query.expanded) == 1 and len(query.expanded[0]) <= MAX_SPELLINGS
    text = " ".join(["x"] * 20_000)  # a 40 KB note of the form, over and over
    start = time.process_time()
    html = snippet(text, query.expanded[0])
    assert time.process_time() - start < 1  # 9.5 s a result with the thousand-way pattern
    assert "<mark>" in html and html.endswith("…")


def test_a_snippet_of_a_long_note_is_looked_for_in_its_beginning():
    text = "开头的正文。" * 5000 + "warp"  # the match past what a snippet reads
    assert snippet(text, parse_query("开头").terms).startswith("<mark>开头</mark>")
    assert "warp" not in snippet(text, parse_query("warp").terms)
