"""A note's Markdown as blocks, and their hashes: what moves a translation behind and what
does not (blog/text/blocks.py), and the blocks rendered one by one for the parallel view."""

import re
from pathlib import Path

import pytest

from blog.rendering import render_blocks
from blog.text.blocks import (
    CODE,
    HEADING,
    LIST,
    MATH,
    OTHER,
    PARAGRAPH,
    QUOTE,
    RULE,
    TABLE,
    TOC,
    block_hashes,
    split_blocks,
    table_rows,
)

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

DEMO_NOTES = sorted((Path(__file__).parent.parent / "blog" / "ops" / "demo" / "notes").glob("*.md"))

# A note as the author writes them: Chinese prose with English terms and everything the
# renderer knows, one of each.
NOTE = """\
# CUDA 的 warp 调度

GPU 上的 kernel 调度由 warp scheduler 完成，
每个周期挑选一个 ready 的 warp。

[TOC]

```python
def launch(grid):
    blocks = grid.size

    return blocks
```

1. 安装 CUDA toolkit

2. 编译并运行：

   ```bash
   nvcc -o gemv gemv.cu

   ./gemv
   ```

3. 用 Nsight Systems 看时间线

$$
\\sum_{i=1}^{n} x_i
= y
$$

\\[
a^2 + b^2 = c^2
\\]

| 名字 | 值 |
|------|----|
| warp | 32 |

Setext 标题
===========

Second heading
--------------

!!! note "注意"
    这是 admonition 的正文。

    第二段也缩进。

正文引用一个脚注[^1]。

[^1]: 脚注的定义，
    跨两行。

> 引用的第一行
> 引用的第二行

- 项目一

- 项目二
- 项目三

---

最后一段。
"""

NOTE_KINDS = [
    (HEADING, 1),
    (PARAGRAPH, 0),
    (TOC, 0),
    (CODE, 0),
    (LIST, 0),
    (MATH, 0),
    (MATH, 0),
    (TABLE, 0),
    (HEADING, 1),
    (HEADING, 2),
    (OTHER, 0),  # the admonition
    (PARAGRAPH, 0),
    (OTHER, 0),  # the footnote's definition
    (QUOTE, 0),
    (LIST, 0),
    (RULE, 0),
    (PARAGRAPH, 0),
]


def outside_code(edit):
    """``edit`` applied to the note's text outside its fenced code."""

    def edited(text):
        parts = re.split(r"(```.*?```)", text, flags=re.DOTALL)
        return "".join(part if i % 2 else edit(part) for i, part in enumerate(parts))

    return edited


def kinds(markdown):
    return [(block.kind, block.level) for block in split_blocks(markdown)]


def changed_blocks(before, after):
    """The positions of the blocks whose hash an edit moved (both versions have as many)."""
    old, new = block_hashes(before), block_hashes(after)
    assert len(old) == len(new), "the edit added or removed a block"
    return [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]


def body_of(path):
    """A demo note's body: what follows its front matter (between --- lines)."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return text.split("\n---\n", 1)[1]


# --- Splitting ---------------------------------------------------------------------------------


def test_a_note_splits_into_the_blocks_a_reader_sees():
    blocks = split_blocks(NOTE)
    assert [(block.kind, block.level) for block in blocks] == NOTE_KINDS
    code, steps, formula = blocks[3], blocks[4], blocks[5]
    assert "\n\n    return blocks" in code.text  # a blank line inside code does not end it
    assert "./gemv" in steps.text and "用 Nsight Systems" in steps.text  # ``` inside an item
    assert formula.text.count("\n") == 3  # $$ … $$ over several lines
    assert "第二段也缩进" in blocks[10].text and "跨两行" in blocks[12].text
    assert blocks[14].text.startswith("- 项目一") and blocks[14].text.endswith("- 项目三")


def test_blocks_are_the_written_markdown_without_surrounding_blank_lines():
    for block in split_blocks("\n\n\n" + NOTE + "\n\n\n"):
        assert block.text.strip()
        assert block.text == block.text.strip("\n")


def test_no_text_no_blocks():
    assert split_blocks("") == split_blocks(None) == split_blocks("\n  \n\t\n") == []
    assert block_hashes("") == []


def test_a_formula_inside_running_text_is_a_paragraph_and_ends_with_it():
    """As the renderer reads it: "$$x$$ 是公式" is running text, and a $$ never closed does
    not swallow the paragraphs after it."""
    assert kinds("$$x$$ 是公式\n\n下一段\n\n再一段 $$") == [(PARAGRAPH, 0)] * 3
    assert kinds("$$ 没有闭合\n\n段落") == [(PARAGRAPH, 0)] * 2
    assert kinds("$$x^2$$\n\n后文") == [(MATH, 0), (PARAGRAPH, 0)]
    assert kinds("$$\na\n\nb\n$$\n\n后文") == [(MATH, 0), (PARAGRAPH, 0)]


def test_headings_as_the_renderer_reads_them():
    assert kinds("#标题\n\n正文 #不是标题") == [(HEADING, 1), (PARAGRAPH, 0)]
    assert kinds("文字\n### 三级标题\n续") == [(PARAGRAPH, 0), (HEADING, 3), (PARAGRAPH, 0)]
    assert kinds("    # 缩进的是代码") == [(CODE, 0)]


def test_indented_code_is_code():
    assert kinds("文字\n\n    code\n      more\n\n    again\n\n后文") == [
        (PARAGRAPH, 0),
        (CODE, 0),
        (PARAGRAPH, 0),
    ]
    # Indented under a list item, it is the item's.
    assert kinds("- 项目\n\n    续段\n\n后文") == [(LIST, 0), (PARAGRAPH, 0)]


def test_a_footnote_runs_on_over_its_unindented_lines_until_the_next():
    assert kinds("[^1]: 脚注\n续行\n[^2]: 二\n\n正文") == [(OTHER, 0), (OTHER, 0), (PARAGRAPH, 0)]


def test_raw_html_is_one_block_to_its_closing_tag():
    details = '<details markdown="1">\n<summary>展开</summary>\n\n正文\n\n</details>'
    assert kinds(f"{details}\n\n后文") == [(OTHER, 0), (PARAGRAPH, 0)]
    assert kinds("<div>\n<div>\n\n内层\n\n</div>\n\n外层\n\n</div>\n\n后") == [
        (OTHER, 0),
        (PARAGRAPH, 0),
    ]
    assert kinds("<!--\n\n作者的备注\n\n-->\n\n正文") == [(OTHER, 0), (PARAGRAPH, 0)]
    # An inline element opening a line opens a paragraph.
    assert kinds("<kbd>Ctrl</kbd> 加 C 复制") == [(PARAGRAPH, 0)]


def test_a_table_s_rows_without_its_delimiter_row():
    [table] = split_blocks("| 名字 | 值 |\n|:-----|---:|\n| warp | 32 |\n| lane | 1 |")
    assert table_rows(table) == ["| 名字 | 值 |", "| warp | 32 |", "| lane | 1 |"]


# --- What moves a hash -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(
            lambda text: text.replace("完成，\n每个周期", "完成，每个周期"), id="re-wrapped"
        ),
        pytest.param(lambda text: text.replace("\n", "  \n"), id="trailing spaces"),
        pytest.param(
            outside_code(lambda text: text.replace("\n\n", "\n\n\n")), id="extra blank lines"
        ),
        pytest.param(lambda text: text.replace("\n", "\r\n"), id="CRLF"),
        pytest.param(
            lambda text: text.replace("GPU 上的", "GPU上的").replace("的 warp", "的warp"),
            id="space between Chinese and Latin",
        ),
        pytest.param(
            lambda text: re.sub(r"(?m)^   (?=\S)", "    ", text),
            id="list item re-indented as a whole",
        ),
        pytest.param(lambda text: text.replace("| warp | 32 |", "|warp|32|"), id="table cells"),
    ],
)
def test_whitespace_outside_code_moves_no_hash(edit):
    edited = edit(NOTE)
    assert edited != NOTE
    assert block_hashes(edited) == block_hashes(NOTE)


@pytest.mark.parametrize(
    "old, new, block",
    [
        pytest.param("挑选一个 ready", "挑选一个 eligible", 1, id="a changed word"),
        pytest.param("    return blocks", "        return blocks", 3, id="code indentation"),
        pytest.param("blocks = grid.size", "blocks = grid .size", 3, id="a space inside code"),
        pytest.param("\n\n    return", "\n    return", 3, id="a blank line inside code"),
        pytest.param("   nvcc -o gemv", "   nvcc  -o gemv", 4, id="a space in a list's code"),
        pytest.param("   ./gemv", "     ./gemv", 4, id="indentation in a list's code"),
        pytest.param("= y", "= z", 5, id="a formula"),
        pytest.param("| warp | 32 |", "| warp | 64 |", 7, id="a table cell"),
        pytest.param("Second heading", "Third heading", 9, id="a setext heading"),
        pytest.param("第二段也缩进", "第二段", 10, id="an admonition's body"),
        pytest.param("跨两行", "跨三行", 12, id="a footnote"),
        pytest.param("- 项目二", "- 项目贰", 14, id="a list item"),
    ],
)
def test_a_change_of_what_the_text_says_moves_that_block_s_hash_only(old, new, block):
    assert NOTE.count(old) == 1
    assert changed_blocks(NOTE, NOTE.replace(old, new)) == [block]


@pytest.mark.parametrize(
    "before, after",
    [
        pytest.param("> ```python\n> if x:\n>     y\n> ```", "> ```python\n> if x:\n> y\n> ```"),
        pytest.param(
            "!!! example\n    ```python\n    if x:\n        y\n    ```",
            "!!! example\n    ```python\n    if x:\n      y\n    ```",
        ),
        pytest.param("文字\n\n    if x:\n        y", "文字\n\n    if x:\n      y"),
    ],
    ids=["in a quote", "in an admonition", "indented code"],
)
def test_code_indentation_counts_wherever_the_code_stands(before, after):
    assert changed_blocks(before, after) == [len(split_blocks(before)) - 1]


def test_the_hash_is_of_the_text_not_of_where_it_stands():
    """A block moved elsewhere keeps its hash: the pair is compared block by block."""
    moved = "最后一段。\n\n" + NOTE.replace("\n最后一段。\n", "\n")
    assert sorted(block_hashes(moved)) == sorted(block_hashes(NOTE))


# --- The demo notes, and the blocks rendered ---------------------------------------------------


def test_there_are_demo_notes_to_read():
    assert len(DEMO_NOTES) >= 10


@pytest.mark.parametrize("path", DEMO_NOTES, ids=lambda path: path.stem)
def test_every_demo_note_splits_and_renders_block_by_block(path):
    body = body_of(path)
    blocks = split_blocks(body)
    assert blocks and all(block.text.strip() for block in blocks)
    rendered = render_blocks(body, "目录")
    assert [(kind, digest) for kind, digest, _html in rendered] == [
        (block.kind, block.hash) for block in blocks
    ]
    for block, (kind, _digest, html) in zip(blocks, rendered, strict=True):
        # A footnote's definition is shown in the list of footnotes, which ends the last block:
        # its own block renders to nothing when another block follows it.
        footnote_definition = block.text.startswith("[^")
        assert html or kind == TOC or footnote_definition, f"a {kind} block rendered to nothing"
    assert "biji-parallel-block-separator" not in str(rendered)


def test_the_rendered_blocks_keep_what_spans_them():
    rendered = render_blocks(NOTE, "目录")
    assert len(rendered) == len(NOTE_KINDS)
    html = [piece for _kind, _digest, piece in rendered]
    assert html[0].startswith("<h1") and 'id="cuda-的-warp-调度"' in html[0]
    assert "目录" in html[2] and 'href="#setext-标题"' in html[2]  # [TOC] lists every heading
    assert html[4].startswith("<ol") and "./gemv" in html[4]  # the item's code stays in it
    assert "<math" in html[5] and "<table" in html[7]
    assert 'href="#fn-1"' in html[11] and 'id="fn-1"' in html[-1]  # the footnotes end the last


def test_raw_html_renders_whole_and_a_comment_stays_hidden():
    rendered = render_blocks(
        '<details markdown="1">\n<summary>展开</summary>\n\n正文\n\n</details>\n\n'
        "<!--\n\n作者的备注\n\n-->\n\n后文"
    )
    details, comment, after = (html for _kind, _digest, html in rendered)
    assert details.startswith("<details") and "<p>正文</p>" in details
    assert comment == "" and "备注" not in str(rendered)
    assert after == "<p>后文</p>"
