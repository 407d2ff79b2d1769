"""What changed in the other note of a translated pair since this note was last in line with it,
block by block, for the notice above the editor.

The note remembers the other's block hashes, not its text: the text is the newest revision with
exactly those hashes. Blocks are matched by hash, so re-wrapping moves nothing; changed blocks
mark the words (CJK characters) that differ. Without such a revision (an import, pruned
history), blocks never seen are listed as "changed or new".
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _
from reversion.errors import RevertError

from blog.models.revisions import versions_of
from blog.models.translation_sync import is_behind
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
    Block,
    block_hashes,
    split_blocks,
    table_rows,
)
from blog.text.cjk import CJK_CHARS

ADDED, REMOVED, CHANGED, CHANGED_OR_NEW = "added", "removed", "changed", "changed-or-new"
INS, DEL, SAME, GAP = "ins", "del", "", "gap"

# Revisions read to find the text a note was in line with, newest first: enough for years of
# an author's saves, and a bound on a page that deserialises each one.
MAX_VERSIONS = 500
# Unchanged lines kept around a change in a code block or a formula; longer runs fold.
CONTEXT_LINES = 2
# Blocks whose every character counts: shown line by line, not word by word.
LINE_KINDS = (CODE, MATH)

KIND_NAMES = {
    HEADING: _("Heading"),
    PARAGRAPH: _("Paragraph"),
    CODE: _("Code block"),
    MATH: _("Formula"),
    TABLE: _("Table"),
    LIST: _("List"),
    QUOTE: _("Quote"),
    RULE: _("Horizontal rule"),
    TOC: _("Table of contents"),
    OTHER: _("Other block"),
}
# In the admin's language; the kind comes first in English ("Paragraph changed").
ACTION_TITLES = {
    ADDED: _("%(kind)s added"),
    REMOVED: _("%(kind)s removed"),
    CHANGED: _("%(kind)s changed"),
    CHANGED_OR_NEW: _("%(kind)s changed or new"),
}

# A Latin word (letters, digits, underscore) is one token; a CJK character, a punctuation
# mark and a run of spaces are one each.
_TOKEN_RE = re.compile(rf"\s+|(?:(?![{CJK_CHARS}])\w)+|.", re.S)


@dataclass(frozen=True)
class Segment:
    """A piece of a block's text: ``mark`` is INS, DEL or SAME."""

    text: str
    mark: str = SAME


@dataclass(frozen=True)
class Line:
    """A line of a code block or formula: ``mark`` is INS, DEL, SAME, or GAP for ``folded``
    unchanged lines."""

    text: str
    mark: str = SAME
    folded: int = 0


@dataclass
class RowChange:
    """A table row added, removed or changed (its old and new cells marked)."""

    action: str
    old: list[Segment] = field(default_factory=list)
    new: list[Segment] = field(default_factory=list)


@dataclass
class BlockChange:
    action: str  # ADDED, REMOVED, CHANGED or CHANGED_OR_NEW
    kind: str  # blog.text.blocks' kind of the block (the new one for a change)
    old: list[Segment] = field(default_factory=list)  # the text then, words marked
    new: list[Segment] = field(default_factory=list)  # the text now, words marked
    lines: list[Line] = field(default_factory=list)  # code and formulas: a line diff
    rows: list[RowChange] = field(default_factory=list)  # tables: the rows that changed

    @property
    def title(self) -> str:
        """ "Paragraph changed", "Table added"… in the admin's language."""
        return ACTION_TITLES[self.action] % {"kind": KIND_NAMES.get(self.kind, KIND_NAMES[OTHER])}

    @property
    def by_line(self) -> bool:
        return bool(self.lines)

    @property
    def by_row(self) -> bool:
        return bool(self.rows)


@dataclass
class TranslationDiff:
    """What changed in ``other`` since ``note`` was last in line with it."""

    note: object
    other: object
    changes: list[BlockChange]
    version: object = None  # the other's revision with the text then; None: not in the history
    gone: int = 0  # without that revision: how many blocks the note saw are gone

    @property
    def found(self) -> bool:
        return self.version is not None


def changes_since_sync(note, other) -> TranslationDiff | None:
    """What changed in ``other`` since ``note`` was in line with it; None when not behind."""
    if not is_behind(note, other):
        return None
    now = split_blocks(other.body)
    version, then = _text_in_line_with(note, other)
    if version is None:
        return _without_history(note, other, now)
    return TranslationDiff(note, other, block_changes(then, now), version)


def _text_in_line_with(note, other):
    """The newest revision of ``other`` whose body has the hashes ``note`` remembers, and its
    blocks; (None, None) when there is none."""
    seen = {}  # the same body in many revisions (a title or tag edit): hashed once
    for version in versions_of(other)[:MAX_VERSIONS]:
        try:
            body = version.field_dict.get("body") or ""
        except RevertError:
            continue  # a revision this code can no longer read
        if body not in seen:
            seen[body] = " ".join(block_hashes(body))
        if seen[body] == note.synced_hashes:
            return version, split_blocks(body)
    return None, None


def _without_history(note, other, now):
    synced = note.synced_hashes.split()
    known = set(synced)
    current = {block.hash for block in now}
    changes = [
        BlockChange(CHANGED_OR_NEW, block.kind, new=[Segment(block.text)], lines=_plain(block))
        for block in now
        if block.hash not in known
    ]
    gone = sum(1 for digest in synced if digest not in current)
    return TranslationDiff(note, other, changes, None, gone)


def _plain(block):
    return [Line(line) for line in block.text.split("\n")] if block.kind in LINE_KINDS else []


def block_changes(old: list[Block], new: list[Block]) -> list[BlockChange]:
    """The changes from ``old`` to ``new``, in the new order, blocks matched by hash; where they
    differ, blocks of one kind in the same order are one block changed."""
    changes = []
    matcher = difflib.SequenceMatcher(
        None, [b.hash for b in old], [b.hash for b in new], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changes += _stretch(old[i1:i2], new[j1:j2])
    return changes


def _stretch(old, new):
    changes = []
    matcher = difflib.SequenceMatcher(
        None, [b.kind for b in old], [b.kind for b in new], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            changes += [_changed(a, b) for a, b in zip(old[i1:i2], new[j1:j2], strict=True)]
            continue
        changes += [_removed(block) for block in old[i1:i2]]
        changes += [_added(block) for block in new[j1:j2]]
    return changes


def _added(block):
    return BlockChange(ADDED, block.kind, new=[Segment(block.text, INS)], lines=_marked(block, INS))


def _removed(block):
    return BlockChange(
        REMOVED, block.kind, old=[Segment(block.text, DEL)], lines=_marked(block, DEL)
    )


def _marked(block, mark):
    return [Line(line, mark) for line in block.text.split("\n")] if block.kind in LINE_KINDS else []


def _changed(old, new):
    if new.kind in LINE_KINDS:
        return BlockChange(CHANGED, new.kind, lines=line_diff(old.text, new.text))
    if new.kind == TABLE:
        return BlockChange(CHANGED, new.kind, rows=row_changes(table_rows(old), table_rows(new)))
    before, after = word_diff(old.text, new.text)
    return BlockChange(CHANGED, new.kind, old=before, new=after)


def row_changes(old_rows: list[str], new_rows: list[str]) -> list[RowChange]:
    """The rows of a table that changed (compared without their spaces, as hashes are)."""
    rows = []
    matcher = difflib.SequenceMatcher(
        None, [_squeezed(r) for r in old_rows], [_squeezed(r) for r in new_rows], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        pairs = list(zip(old_rows[i1:i2], new_rows[j1:j2], strict=False))
        for before, after in pairs:
            rows.append(RowChange(CHANGED, *word_diff(before, after)))
        rows += [RowChange(REMOVED, old=[Segment(r, DEL)]) for r in old_rows[i1 + len(pairs) : i2]]
        rows += [RowChange(ADDED, new=[Segment(r, INS)]) for r in new_rows[j1 + len(pairs) : j2]]
    return rows


def _squeezed(text):
    return "".join(text.split())


def word_diff(old: str, new: str) -> tuple[list[Segment], list[Segment]]:
    """``old`` and ``new`` with words (Latin) or characters (CJK) that differ marked; spaces count
    for nothing, as in hashes."""
    a, b = _TOKEN_RE.findall(old), _TOKEN_RE.findall(new)
    matcher = difflib.SequenceMatcher(
        None, [_key(t) for t in a], [_key(t) for t in b], autojunk=False
    )
    before, after = [], []
    for tag, i1, i2, j1, j2 in _absorb_crumbs(matcher.get_opcodes(), a):
        if tag == "equal":
            before.append(Segment("".join(a[i1:i2])))
            after.append(Segment("".join(b[j1:j2])))
            continue
        before += _tokens(a[i1:i2], DEL)
        after += _tokens(b[j1:j2], INS)
    return _joined(before), _joined(after)


def _key(token):
    return " " if token.isspace() else token


def _tokens(tokens, mark):
    # Spaces alone are not a change: left unmarked, so no empty highlight shows.
    return [Segment(t, SAME if t.isspace() else mark) for t in tokens]


def _absorb_crumbs(opcodes, tokens):
    """Opcodes where a lone common character between two changes joins them: two phrases read better
    than a scatter of single characters."""
    opcodes = list(opcodes)
    merged = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        between = 0 < index < len(opcodes) - 1
        crumb = tag == "equal" and between and len("".join(tokens[i1:i2]).strip()) <= 1
        if (tag != "equal" or crumb) and merged and merged[-1][0] == "replace":
            _, p1, _, q1, _ = merged[-1]
            merged[-1] = ("replace", p1, i2, q1, j2)
        else:
            merged.append((tag if tag == "equal" else "replace", i1, i2, j1, j2))
    return merged


def _joined(segments):
    """Neighbouring segments with the same mark as one (fewer elements, same text)."""
    joined = []
    for segment in segments:
        if not segment.text:
            continue
        if joined and joined[-1].mark == segment.mark:
            joined[-1] = Segment(joined[-1].text + segment.text, segment.mark)
        else:
            joined.append(segment)
    return joined


def line_diff(old: str, new: str, context: int = CONTEXT_LINES) -> list[Line]:
    """A code block's or formula's lines, changes marked, unchanged runs folded to ``context`` lines
    either side (a GAP line says how many)."""
    a, b = old.split("\n"), new.split("\n")
    lines = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    opcodes = matcher.get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            lines += [Line(line, DEL) for line in a[i1:i2]]
            lines += [Line(line, INS) for line in b[j1:j2]]
            continue
        same = b[j1:j2]
        head = context if index > 0 else 0
        tail = context if index < len(opcodes) - 1 else 0
        if len(same) <= head + tail + 1:
            lines += [Line(line) for line in same]
            continue
        lines += [Line(line) for line in same[:head]]
        lines.append(Line("", GAP, len(same) - head - tail))
        lines += [Line(line) for line in same[len(same) - tail :]]
    return lines


def text_token(note) -> str:
    """A short name for ``note``'s text as a page showed it: "brought in line" is refused when the
    text changed since."""
    return hashlib.sha256(note.block_hashes.encode()).hexdigest()[:16]
