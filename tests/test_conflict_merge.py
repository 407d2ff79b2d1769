"""The three-way merge behind the conflict screen (blog/authoring/merge.py): changes on other
lines than the author's are applied, overlapping ones are marked for a choice, and a choice
puts back exactly the lines chosen. Pure functions: no database."""

import pytest

from blog.authoring.merge import marked_conflicts, merge, merge_token, resolve, two_way

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

BASE = "# 调度\n\n第一段。\n\n第二段。\n\n第三段。\n"
TOKEN = merge_token("1796348387267304")
LABELS = ("their version", "your version")


def test_changes_on_different_lines_are_both_applied():
    theirs = BASE.replace("第一段。", "第一段，对方改过。") + "\n对方加的一段。\n"
    mine = BASE.replace("第三段。", "第三段，我改过。")
    result = merge(BASE, theirs, mine)
    assert result.conflicts == []
    assert result.theirs_applied == 2
    assert result.text(TOKEN, LABELS) == (
        "# 调度\n\n第一段，对方改过。\n\n第二段。\n\n第三段，我改过。\n\n对方加的一段。\n"
    )


def test_the_same_change_on_both_sides_is_applied_once():
    both = BASE.replace("第二段。", "第二段，两边一样。")
    result = merge(BASE, both, both)
    assert result.conflicts == [] and result.text(TOKEN) == both


def test_overlapping_changes_are_marked_with_both_sides_kept():
    theirs = BASE.replace("第二段。", "第二段，对方的说法。")
    mine = BASE.replace("第二段。", "第二段，我的说法。")
    result = merge(BASE, theirs, mine)
    assert len(result.conflicts) == 1
    text = result.text(TOKEN, LABELS)
    assert text == (
        "# 调度\n\n第一段。\n\n"
        f"<<<<<<< their version [#1 {TOKEN}]\n第二段，对方的说法。\n"
        f"======= your version [#1 {TOKEN}]\n第二段，我的说法。\n"
        f">>>>>>> [#1 {TOKEN}]\n"
        "\n第三段。\n"
    )


def test_changes_to_adjacent_lines_and_additions_beside_a_change_are_both_applied():
    base = "一\n二\n三\n"
    result = merge(base, "一\n二（对方）\n三\n", "一\n二\n三（我）\n")
    assert result.conflicts == [] and result.text(TOKEN) == "一\n二（对方）\n三（我）\n"
    result = merge(base, "零\n一\n二\n三\n四\n", "一（我）\n二\n三（我）\n")
    assert result.conflicts == [] and result.text(TOKEN) == "零\n一（我）\n二\n三（我）\n四\n"


def test_two_additions_at_the_same_place_are_a_choice():
    result = merge("一\n二\n", "一\n对方加的\n二\n", "一\n我加的\n二\n")
    assert len(result.conflicts) == 1
    assert result.conflicts[0].theirs == ("对方加的\n",) and result.conflicts[0].mine == (
        "我加的\n",
    )


def test_a_last_line_without_a_newline_does_not_swallow_a_marker():
    result = merge("a\nb", "a\nb-theirs", "a\nb-mine")
    text = result.text(TOKEN, LABELS)
    assert f"b-theirs\n======= your version [#1 {TOKEN}]\n" in text
    assert text.endswith(f"b-mine\n>>>>>>> [#1 {TOKEN}]\n")


def test_windows_line_endings_from_the_browser_are_not_changes():
    theirs = BASE.replace("\n", "\r\n")  # posted by a browser, stored as sent
    mine = BASE.replace("第三段。", "第三段，我改过。").replace("\n", "\r\n")
    result = merge(BASE, theirs, mine)
    assert result.conflicts == [] and result.theirs_applied == 0
    assert result.text(TOKEN) == BASE.replace("第三段。", "第三段，我改过。")


def test_without_a_base_every_difference_is_a_choice():
    result = two_way("一\n二\n三\n", "一\n二改\n三\n四\n")
    assert len(result.conflicts) == 2
    assert result.theirs_applied == 0


def marked_text():
    theirs = BASE.replace("第一段。", "第一段，对方。").replace("第三段。", "第三段，对方。")
    mine = BASE.replace("第一段。", "第一段，我。").replace("第三段。", "第三段，我。")
    return merge(BASE, theirs, mine).text(TOKEN, LABELS)


def test_each_choice_puts_back_exactly_the_lines_chosen():
    text = marked_text()
    resolved, undecided = resolve(text, TOKEN, {1: "theirs", 2: "both"})
    assert undecided == []
    assert resolved == "# 调度\n\n第一段，对方。\n\n第二段。\n\n第三段，对方。\n第三段，我。\n"
    resolved, _ = resolve(text, TOKEN, {1: "mine", 2: "mine"})
    assert resolved == BASE.replace("第一段。", "第一段，我。").replace("第三段。", "第三段，我。")


def test_a_place_without_a_choice_stays_marked_and_is_reported():
    resolved, undecided = resolve(marked_text(), TOKEN, {2: "theirs", 1: "nonsense"})
    assert [c.number for c in undecided] == [1]
    assert resolved.count(f"[#1 {TOKEN}]") == 3 and f"[#2 {TOKEN}]" not in resolved


def test_edits_made_inside_a_marked_place_are_kept_by_the_choice():
    text = marked_text().replace("第一段，我。", "第一段，我又改了。")
    resolved, _ = resolve(text, TOKEN, {1: "mine", 2: "mine"})
    assert "第一段，我又改了。" in resolved


def test_markers_of_another_token_and_git_markers_in_a_note_are_left_alone():
    note_about_git = "```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n```\n"
    assert resolve(note_about_git, TOKEN, {1: "theirs"}) == (note_about_git, [])
    assert marked_conflicts(marked_text(), merge_token("another version")) == ([], False)


def test_a_marker_line_left_without_its_pair_is_reported():
    text = marked_text()
    broken = text.replace(f">>>>>>> [#1 {TOKEN}]\n", "", 1)
    _conflicts, stray = marked_conflicts(broken, TOKEN)
    assert stray
