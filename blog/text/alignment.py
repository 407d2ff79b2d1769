"""Which blocks of a translation stand beside which of its original, by structure alone (sections by
heading level, then blocks by kind); what does not pair stays unmatched."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import groupby
from typing import NamedTuple

from blog.text.blocks import HEADING, TOC

_HEADING_TAG_RE = re.compile(r"\s*<h([1-6])[\s>]", re.IGNORECASE)


class ParallelBlock(NamedTuple):
    kind: str
    hash: str
    html: str
    level: int = 0  # a heading's level (1-6), 0 for other blocks
    changed: bool = False  # an original's block changed since the translation's last sync


class Row(NamedTuple):
    left: ParallelBlock | None
    right: ParallelBlock | None
    matched: bool


@dataclass
class Passage:
    """What the page sets side by side as one row: a pair of blocks (``matched``), or
    consecutive unmatched blocks of either version, which do not correspond block for block."""

    left: list[ParallelBlock] = field(default_factory=list)
    right: list[ParallelBlock] = field(default_factory=list)
    matched: bool = True

    @property
    def changed(self) -> bool:
        return any(block.changed for block in self.left)


def from_stored(stored, changed=frozenset()) -> list[ParallelBlock]:
    """``Note.parallel_blocks`` (``[kind, hash, html]`` lists) as blocks, a heading's level read
    from its tag; a block whose hash is in ``changed`` is marked ``changed``."""
    blocks = []
    for kind, digest, html in stored:
        level = 0
        if kind == HEADING:
            tag = _HEADING_TAG_RE.match(html)
            level = int(tag.group(1)) if tag else 1
        blocks.append(ParallelBlock(kind, digest, html, level, digest in changed))
    return blocks


def align(left, right) -> list[Row]:
    """Rows of ``left`` and ``right`` blocks (``(kind, hash, html, level)`` tuples or
    :class:`ParallelBlock`), in reading order. ``[TOC]`` blocks are left out."""
    left = [ParallelBlock(*block) for block in left if block[0] != TOC]
    right = [ParallelBlock(*block) for block in right if block[0] != TOC]
    rows: list[Row] = []
    for a, b in _paired_sections(_sections(left), _sections(right)):
        if a is None or b is None:
            rows += _unmatched(a.blocks if a else [], b.blocks if b else [])
            continue
        if a.heading is not None:
            rows.append(Row(a.heading, b.heading, True))
        rows += _paired_blocks(a.body, b.body)
    return rows


def passages(rows) -> list[Passage]:
    """Rows as the page shows them: each matched row alone, consecutive unmatched rows as one
    passage."""
    result: list[Passage] = []
    for matched, group in groupby(rows, key=lambda row: row.matched):
        if matched:
            result += [Passage([row.left], [row.right]) for row in group]
        else:
            group = list(group)
            result.append(
                Passage(
                    [row.left for row in group if row.left is not None],
                    [row.right for row in group if row.right is not None],
                    matched=False,
                )
            )
    return result


# --- sections ---------------------------------------------------------------------------------


class _Section(NamedTuple):
    heading: ParallelBlock | None  # None: the blocks before the first heading
    body: list[ParallelBlock]

    @property
    def level(self) -> int:
        return max(self.heading.level, 1) if self.heading is not None else 0

    @property
    def blocks(self) -> list[ParallelBlock]:
        return ([self.heading] if self.heading is not None else []) + self.body


def _sections(blocks) -> list[_Section]:
    sections = [_Section(None, [])]  # always there, empty or not: the two versions' pair
    for block in blocks:
        if block.kind == HEADING:
            sections.append(_Section(block, []))
        else:
            sections[-1].body.append(block)
    return sections


def _paired_sections(a, b) -> list[tuple[_Section | None, _Section | None]]:
    """Sections in order, paired, or alone with None on the other side."""
    if [s.level for s in a] == [s.level for s in b]:
        return list(zip(a, b, strict=True))
    # The most pairs of sections with equal heading levels, in order (a longest common
    # subsequence); among those, the pairs most alike. A pair is worth more than any likeness
    # (at most 1 a pair), so likeness only chooses between pairings of the same size. Scored
    # from the end and read from the start, so that of equal pairings the one pairing the
    # earlier sections wins: a section added at the end of a version stands alone at the end.
    shapes_a, shapes_b = [_Shape(s) for s in a], [_Shape(s) for s in b]
    worth = min(len(a), len(b)) + 1

    def paired(i, j):
        if a[i].level != b[j].level:
            return None
        return best[i + 1][j + 1] + worth + shapes_a[i].likeness(shapes_b[j])

    best = [[0.0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            pair = paired(i, j)
            best[i][j] = max(best[i + 1][j], best[i][j + 1], pair if pair is not None else 0.0)
    pairs: list[tuple[_Section | None, _Section | None]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        if i < len(a) and j < len(b) and best[i][j] == paired(i, j):
            pairs.append((a[i], b[j]))
            i, j = i + 1, j + 1
        elif i < len(a) and (j == len(b) or best[i][j] == best[i + 1][j]):
            pairs.append((a[i], None))
            i += 1
        else:
            pairs.append((None, b[j]))
            j += 1
    return pairs


class _Shape:
    """A section's kinds of block, to tell how alike two sections are."""

    def __init__(self, section):
        self.kinds = [block.kind for block in section.body]
        self.counts = Counter(self.kinds)

    def likeness(self, other) -> float:
        """1 for the same kinds in the same order, else under a half: the share of blocks
        whose kind the other section has too."""
        if self.kinds == other.kinds:
            return 1.0
        common = sum((self.counts & other.counts).values())
        return 0.5 * common / max(len(self.kinds), len(other.kinds))


# --- blocks within two paired sections --------------------------------------------------------


def _paired_blocks(a, b) -> list[Row]:
    if [block.kind for block in a] == [block.kind for block in b]:
        return [Row(x, y, True) for x, y in zip(a, b, strict=True)]
    runs_a, runs_b = _runs(a), _runs(b)
    kinds_a, kinds_b = [run[0].kind for run in runs_a], [run[0].kind for run in runs_b]
    rows: list[Row] = []
    matcher = SequenceMatcher(None, kinds_a, kinds_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            rows += _unmatched(_flat(runs_a[i1:i2]), _flat(runs_b[j1:j2]))
            continue
        for run_a, run_b in zip(runs_a[i1:i2], runs_b[j1:j2], strict=True):
            if len(run_a) == len(run_b):
                rows += [Row(x, y, True) for x, y in zip(run_a, run_b, strict=True)]
            else:
                rows += _unmatched(run_a, run_b)
    return rows


def _runs(blocks) -> list[list[ParallelBlock]]:
    """Consecutive blocks of one kind, together."""
    return [list(run) for _kind, run in groupby(blocks, key=lambda block: block.kind)]


def _flat(runs) -> list[ParallelBlock]:
    return [block for run in runs for block in run]


def _unmatched(a, b) -> list[Row]:
    return [Row(x, None, False) for x in a] + [Row(None, y, False) for y in b]
