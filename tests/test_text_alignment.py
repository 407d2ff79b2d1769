"""The parallel view's alignment (blog.text.alignment): headings pair with headings, then blocks
in order within a section; where the two versions do not match block for block, the blocks
are left unmatched instead of being set beside the wrong ones."""

import pytest

from blog.text.alignment import ParallelBlock, Row, align, from_stored, passages

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py


def h(level, name):
    return ParallelBlock("heading", f"h-{name}", f"<h{level}>{name}</h{level}>", level)


def p(name):
    return ParallelBlock("paragraph", f"p-{name}", f"<p>{name}</p>")


def code(name):
    return ParallelBlock("code", f"c-{name}", f"<pre>{name}</pre>")


def math(name):
    return ParallelBlock("math", f"m-{name}", f"<math>{name}</math>")


def names(rows):
    """Rows as (left name, right name, matched), a name being the block's hash suffix."""

    def name(block):
        return block.hash.split("-", 1)[1] if block is not None else None

    return [(name(row.left), name(row.right), row.matched) for row in rows]


def test_the_same_structure_pairs_block_by_block():
    left = [p("intro"), h(2, "一"), p("a"), code("x"), math("f"), h(3, "二"), p("b")]
    right = [p("Intro"), h(2, "One"), p("A"), code("X"), math("F"), h(3, "Two"), p("B")]
    assert names(align(left, right)) == [
        ("intro", "Intro", True),
        ("一", "One", True),
        ("a", "A", True),
        ("x", "X", True),
        ("f", "F", True),
        ("二", "Two", True),
        ("b", "B", True),
    ]


def test_a_section_the_translation_left_out_stands_alone():
    left = [h(2, "一"), p("a"), h(2, "二"), code("x"), p("b"), h(2, "三"), p("c")]
    right = [h(2, "One"), p("A"), h(2, "Three"), p("C")]
    assert names(align(left, right)) == [
        ("一", "One", True),
        ("a", "A", True),
        ("二", None, False),
        ("x", None, False),
        ("b", None, False),
        ("三", "Three", True),
        ("c", "C", True),
    ]


def test_among_sections_of_one_level_the_alike_ones_pair():
    """The first section is missing in the translation: pairing by position would set the
    second beside the first. Shapes tell: [code, paragraph] vs [paragraph, paragraph]."""
    left = [h(2, "一"), p("a1"), p("a2"), h(2, "二"), code("x"), p("b")]
    right = [h(2, "Two"), code("X"), p("B")]
    assert names(align(left, right)) == [
        ("一", None, False),
        ("a1", None, False),
        ("a2", None, False),
        ("二", "Two", True),
        ("x", "X", True),
        ("b", "B", True),
    ]


def test_a_section_added_at_the_end_stands_alone_at_the_end():
    left = [h(2, "一"), p("a"), h(2, "二"), p("b")]
    right = [h(2, "One"), p("A"), h(2, "Two"), p("B"), h(2, "Three"), p("C")]
    assert names(align(left, right))[-2:] == [(None, "Three", False), (None, "C", False)]
    assert all(matched for _l, _r, matched in names(align(left, right))[:-2])


def test_sections_with_other_heading_levels_do_not_pair():
    left = [h(2, "一"), p("a"), h(3, "二"), p("b")]
    right = [h(2, "One"), p("A"), h(2, "Two"), p("B")]
    assert names(align(left, right)) == [
        ("一", "One", True),
        ("a", "A", True),
        ("二", None, False),
        ("b", None, False),
        (None, "Two", False),
        (None, "B", False),
    ]


def test_different_counts_of_paragraphs_are_not_paired_by_position():
    """The demo's English version opens with a line the original does not have: the
    original's one paragraph is not set beside that line."""
    left = [p("intro"), h(2, "一"), p("a")]
    right = [p("note"), p("Intro"), h(2, "One"), p("A")]
    assert names(align(left, right)) == [
        ("intro", None, False),
        (None, "note", False),
        (None, "Intro", False),
        ("一", "One", True),
        ("a", "A", True),
    ]


def test_runs_of_one_kind_pair_around_what_differs():
    """A formula only in the original: the paragraphs before and after it still pair, and
    so does the code, whose run has one block on each side."""
    left = [h(2, "一"), p("a"), p("b"), math("f"), code("x"), p("c")]
    right = [h(2, "One"), p("A"), p("B"), code("X"), p("C")]
    assert names(align(left, right)) == [
        ("一", "One", True),
        ("a", "A", True),
        ("b", "B", True),
        ("f", None, False),
        ("x", "X", True),
        ("c", "C", True),
    ]


def test_a_code_block_against_a_formula_is_unmatched():
    left = [p("a"), code("x"), p("b")]
    right = [p("A"), math("F"), p("B")]
    assert names(align(left, right)) == [
        ("a", "A", True),
        ("x", None, False),
        (None, "F", False),
        ("b", "B", True),
    ]


def test_table_of_contents_blocks_are_left_out():
    toc = ParallelBlock("toc", "t", '<div class="toc"></div>')
    assert names(align([toc, p("a")], [p("A")])) == [("a", "A", True)]


def test_an_empty_translation_leaves_everything_unmatched():
    assert names(align([h(2, "一"), p("a")], [])) == [("一", None, False), ("a", None, False)]
    assert align([], []) == []


def test_consecutive_unmatched_rows_make_one_passage():
    rows = [
        Row(p("x"), p("X"), True),
        Row(p("a"), None, False),
        Row(None, p("A1"), False),
        Row(None, p("A2"), False),
        Row(p("y"), p("Y"), True),
    ]
    shown = passages(rows)
    assert [(len(s.left), len(s.right), s.matched) for s in shown] == [
        (1, 1, True),
        (1, 2, False),
        (1, 1, True),
    ]


def test_stored_blocks_read_heading_levels_and_changed_hashes():
    stored = [
        ["heading", "h1", '<h3 id="x">X<a class="headerlink" href="#x">¶</a></h3>'],
        ["paragraph", "p1", "<p>Y</p>"],
    ]
    heading, paragraph = from_stored(stored, changed={"p1"})
    assert (heading.level, heading.changed) == (3, False)
    assert (paragraph.level, paragraph.changed) == (0, True)
    assert passages(align([heading, paragraph], [heading, paragraph]))[1].changed
