"""A note's Markdown as hashed blocks, the unit of translation sync. A hash moves with the text only
(not whitespace outside code, not the HTML), and blocks are split by biji's own rules: they are part
of the stored hashes' meaning."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

HEADING, PARAGRAPH, CODE, MATH, TABLE, LIST, QUOTE, RULE, TOC, OTHER = (
    "heading", "paragraph", "code", "math", "table", "list", "quote", "rule", "toc", "other",
)  # fmt: skip

_FENCE_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})")
# As Python-Markdown reads an ATX heading: "#" at the start of the line, no space needed
# ("#标题" is a heading there, "  # x" is not).
_HEADING_RE = re.compile(r"^(?P<marks>#{1,6})")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)\s*$")
_LIST_ITEM_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_QUOTE_RE = re.compile(r"^ {0,3}>")
_RULE_RE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_TABLE_DELIMITER_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
# Blocks whose body is indented under an opening line: admonitions, details, footnotes.
_CONTAINER_RE = re.compile(r"^(?:!!!|\?\?\?\+?|\[\^[^\]]+\]:)")
_FOOTNOTE_RE = re.compile(r"^\[\^[^\]]+\]:")
_INDENTED_CODE_RE = re.compile(r"^(?: {4}|\t)")
# A fence inside a list item, a block quote or an admonition, after its quote marks and indent.
_INNER_FENCE_RE = re.compile(r"^(?P<prefix>(?:[ \t]*>)*[ \t]*)(?P<fence>`{3,}|~{3,})")
# Raw HTML that Python-Markdown 3 passes through as one block, to its closing tag (blank lines
# and all): a comment, or an element it counts as block-level (its list, frozen here). A line
# opening with another tag (<kbd>, <span>) is a paragraph.
_HTML_COMMENT_RE = re.compile(r"^ {0,3}<!--")
_HTML_OPEN_RE = re.compile(r"^ {0,3}<(?P<tag>[A-Za-z][A-Za-z0-9-]*)(?=[\s/>]|$)")
_HTML_BLOCK_TAGS = frozenset(
    "address article aside blockquote body canvas center colgroup dd details div dl dt fieldset "
    "figcaption figure footer form group h1 h2 h3 h4 h5 h6 header hgroup hr html iframe legend "
    "li main map math menu nav noscript object ol option output p pre progress script section "
    "style summary table tbody td textarea tfoot th thead tr ul video".split()
)
_MATH_OPENERS = {"$$": "$$", "\\[": "\\]"}
_HASH_LENGTH = 16  # hex digits: 64 bits, no collision among a note's blocks in practice


@dataclass(frozen=True)
class Block:
    kind: str
    text: str  # the block's Markdown as written, without surrounding blank lines
    level: int = 0  # a heading's level (1-6), 0 for other blocks

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.normalized.encode()).hexdigest()[:_HASH_LENGTH]

    @property
    def normalized(self) -> str:
        if self.kind == CODE:
            return "\n".join(line.rstrip() for line in self.text.split("\n"))
        if self.kind in (LIST, QUOTE, OTHER):
            return _without_whitespace_outside_code(self.text)
        return "".join(self.text.split())


def block_hashes(markdown: str) -> list[str]:
    return [block.hash for block in split_blocks(markdown)]


def table_rows(block: Block) -> list[str]:
    """A table's rows as written, without the delimiter row (``|---|---|``)."""
    return [
        row for row in block.text.split("\n") if row.strip() and not _TABLE_DELIMITER_RE.match(row)
    ]


def split_blocks(markdown: str) -> list[Block]:
    lines = (markdown or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    i, count = 0, len(lines)
    while i < count:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if fence := _FENCE_RE.match(line):
            end = _fence_end(lines, i, fence.group("fence"))
            blocks.append(Block(CODE, "\n".join(lines[i:end])))
            i = end
        elif _INDENTED_CODE_RE.match(line):
            end = _indented_code_end(lines, i)
            blocks.append(Block(CODE, "\n".join(lines[i:end])))
            i = end
        elif heading := _HEADING_RE.match(line):
            blocks.append(Block(HEADING, line.strip(), len(heading.group("marks"))))
            i += 1
        elif (opener := line.strip()[:2]) in _MATH_OPENERS and (
            end := _math_end(lines, i, _MATH_OPENERS[opener])
        ):
            blocks.append(Block(MATH, "\n".join(lines[i:end])))
            i = end
        elif _RULE_RE.match(line):
            blocks.append(Block(RULE, line.strip()))
            i += 1
        elif _LIST_ITEM_RE.match(line):
            end = _indented_end(lines, i, continues=_LIST_ITEM_RE)
            blocks.append(Block(LIST, "\n".join(lines[i:end])))
            i = end
        elif _QUOTE_RE.match(line):
            end = _paragraph_end(lines, i)
            blocks.append(Block(QUOTE, "\n".join(lines[i:end])))
            i = end
        elif end := _html_end(lines, i):
            blocks.append(Block(OTHER, "\n".join(lines[i:end])))
            i = end
        elif _CONTAINER_RE.match(line):
            end = _indented_end(lines, i, lazy=bool(_FOOTNOTE_RE.match(line)))
            blocks.append(Block(OTHER, "\n".join(lines[i:end])))
            i = end
        else:
            end = _paragraph_end(lines, i)
            blocks.append(_paragraph_or_table(lines[i:end]))
            i = end
    return blocks


def _paragraph_or_table(lines: list[str]) -> Block:
    text = "\n".join(lines)
    if len(lines) >= 2 and "|" in lines[0] and _TABLE_DELIMITER_RE.match(lines[1]):
        return Block(TABLE, text)
    if len(lines) == 2 and _SETEXT_RE.match(lines[1]):
        return Block(HEADING, text, 1 if lines[1].strip().startswith("=") else 2)
    if text.strip() == "[TOC]":
        return Block(TOC, text)
    if _is_html_block(lines[0]):
        return Block(OTHER, text)  # raw HTML never closed, a lone <hr> and the like
    return Block(PARAGRAPH, text)


def _fence_end(lines, start, fence, indented=False) -> int:
    """The index after the closing fence (or the end: an unclosed fence runs to the end)."""
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for i in range(start + 1, len(lines)):
        if closing.match(lines[i].lstrip() if indented else lines[i]):
            return i + 1
    return len(lines)


def _math_end(lines, start, closer) -> int | None:
    """The index after a display formula's closing line, or None when the lines are not one, as
    :class:`blog.rendering.mathml.DisplayMathProcessor` decides."""
    for i in range(start, len(lines)):
        line = lines[i].strip()
        search_from = 2 if i == start else 0  # past the opener
        end = line.find(closer, search_from)
        if end == -1:
            continue
        if line[end + len(closer) :].strip() or (i + 1 < len(lines) and lines[i + 1].strip()):
            return None  # more text after the closer: a paragraph
        return i + 1
    return None


def _is_html_block(line) -> bool:
    if _HTML_COMMENT_RE.match(line):
        return True
    opening = _HTML_OPEN_RE.match(line)
    return bool(opening and opening.group("tag").lower() in _HTML_BLOCK_TAGS)


def _html_end(lines, start) -> int | None:
    """The index after the line closing a raw HTML block (its nested elements of the same name
    counted), or None when the line opens none or it is never closed."""
    line = lines[start]
    if _HTML_COMMENT_RE.match(line):
        first = line.index("<!--") + 4
        for i in range(start, len(lines)):
            if "-->" in (lines[i][first:] if i == start else lines[i]):
                return i + 1
        return None
    if not _is_html_block(line):
        return None
    tag = re.escape(_HTML_OPEN_RE.match(line).group("tag"))
    opens = re.compile(rf"<{tag}(?=[\s/>]|$)", re.IGNORECASE)
    closes = re.compile(rf"</{tag}\s*>", re.IGNORECASE)
    depth = 0
    for i in range(start, len(lines)):
        depth += len(opens.findall(lines[i])) - len(closes.findall(lines[i]))
        if depth <= 0:
            return i + 1
    return None


def _paragraph_end(lines, start) -> int:
    """A paragraph runs to the next blank line, or to a line that opens a block of its own."""
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if not line.strip() or _FENCE_RE.match(line) or _HEADING_RE.match(line):
            break
        i += 1
    return i


def _indented_code_end(lines, start) -> int:
    """An indented code block runs on over blank lines while what follows is indented."""
    end = i = start + 1
    while i < len(lines) and (not lines[i].strip() or _INDENTED_CODE_RE.match(lines[i])):
        i += 1
        if lines[i - 1].strip():
            end = i  # blank lines after the code are not part of it
    return end


def _indented_end(lines, start, continues=None, lazy=False) -> int:
    """A list or container runs on over blank lines while what follows is indented or another item;
    ``lazy``: an unindented line right after the first continues it."""
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            following = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            if following is None:
                return i
            nxt = lines[following]
            if nxt.startswith((" ", "\t")) or (continues and continues.match(nxt)):
                i = following
                continue
            return i
        if not line.startswith((" ", "\t")) and i > start:
            # An unindented line right after the list: another item, or lazy continuation of
            # the item's paragraph, unless it opens a block of its own.
            if (continues is None and not lazy) or _FENCE_RE.match(line) or _HEADING_RE.match(line):
                return i
            if lazy and _CONTAINER_RE.match(line):
                return i  # the next footnote
        if fence := _FENCE_RE.match(line.lstrip()):
            i = _fence_end(lines, i, fence.group("fence"), indented=True)
            continue
        i += 1
    return i


def _without_whitespace_outside_code(text: str) -> str:
    """A list's, quote's or admonition's text without whitespace, except in its fenced code, less
    the fence's quote marks and indentation."""
    kept, fence = [], None
    for line in text.split("\n"):
        if fence is None:
            kept.append("".join(line.split()))
            if opening := _INNER_FENCE_RE.match(line):
                fence, prefix = opening.group("fence"), opening.group("prefix")
                quotes, indent = prefix.count(">"), len(prefix.rsplit(">", 1)[-1])
            continue
        code = re.sub(rf"^(?:[ \t]*>){{{quotes}}}", "", line.rstrip(), count=1)
        code = re.sub(rf"^ {{0,{indent}}}", "", code, count=1)
        if re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", code):
            kept.append("".join(line.split()))
            fence = None
        else:
            kept.append("\n" + code)
    return "".join(kept)
