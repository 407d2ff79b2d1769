"""A note's Markdown as blocks — headings, paragraphs, code, formulas, tables, lists — each
with a hash of what it says.

A translated pair is compared block by block (:mod:`blog.models.translation_sync`): a note
remembers the hashes of its other version's blocks when the two were last in line, and is
behind when they differ from the other's hashes now. So a hash must move with the text and
with nothing else:

* outside code, whitespace does not count: re-wrapping a paragraph, trailing spaces, an extra
  blank line or a space added between Chinese and Latin (``GPU上`` → ``GPU 上``) leave every
  hash as it was;
* inside a fenced code block every character counts (indentation is code);
* the hash is of the Markdown, never of the HTML, so a renderer upgrade (``manage.py
  rerender``) moves nothing.

Blocks are found line by line, the way a reader sees them, not by a Markdown parser: the
splitting rules are part of the stored hashes' meaning and must not change with a library
upgrade. A list, a block quote, an admonition and a table are one block each (they render as
one element); :func:`table_rows` splits a table for a readable diff.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

HEADING, PARAGRAPH, CODE, MATH, TABLE, LIST, QUOTE, RULE, TOC, OTHER = (
    "heading", "paragraph", "code", "math", "table", "list", "quote", "rule", "toc", "other",
)  # fmt: skip

_FENCE_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:\s|$)")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)\s*$")
_LIST_ITEM_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_QUOTE_RE = re.compile(r"^ {0,3}>")
_RULE_RE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_TABLE_DELIMITER_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
# Blocks whose body is indented under an opening line: admonitions, details, footnotes.
_CONTAINER_RE = re.compile(r"^(?:!!!|\?\?\?\+?|\[\^[^\]]+\]:)")
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
            return "\n".join(line.rstrip("\r") for line in self.text.split("\n"))
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
        elif heading := _HEADING_RE.match(line):
            blocks.append(Block(HEADING, line.strip(), len(heading.group("marks"))))
            i += 1
        elif (opener := line.strip()[:2]) in _MATH_OPENERS:
            end = _math_end(lines, i, _MATH_OPENERS[opener])
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
        elif _CONTAINER_RE.match(line):
            end = _indented_end(lines, i)
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
    if text.strip().startswith("<"):
        return Block(OTHER, text)  # raw HTML, [TOC] markers and the like
    return Block(PARAGRAPH, text)


def _fence_end(lines, start, fence, indented=False) -> int:
    """The index after the closing fence (or the end: an unclosed fence runs to the end)."""
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for i in range(start + 1, len(lines)):
        if closing.match(lines[i].lstrip() if indented else lines[i]):
            return i + 1
    return len(lines)


def _math_end(lines, start, closer) -> int:
    first = lines[start].strip()
    if len(first) > 2 and first.endswith(closer):
        return start + 1
    for i in range(start + 1, len(lines)):
        if lines[i].strip().endswith(closer):
            return i + 1
    return len(lines)


def _paragraph_end(lines, start) -> int:
    """A paragraph runs to the next blank line, or to a line that opens a block of its own."""
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if not line.strip() or _FENCE_RE.match(line) or _HEADING_RE.match(line):
            break
        i += 1
    return i


def _indented_end(lines, start, continues=None) -> int:
    """A list or a container runs on over blank lines while what follows is indented (its
    continuation) or, for a list, another item; a fence inside it belongs to it."""
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
            if continues is None or _FENCE_RE.match(line) or _HEADING_RE.match(line):
                return i
        if fence := _FENCE_RE.match(line.lstrip()):
            i = _fence_end(lines, i, fence.group("fence"), indented=True)
            continue
        i += 1
    return i
