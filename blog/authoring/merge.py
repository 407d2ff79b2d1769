"""Three-way merge of a text by lines, for edit conflicts (:mod:`blog.authoring.conflicts`):
*base* (the text the form was opened at), *theirs* (stored since), *mine* (just submitted).

Changes to different lines, adjacent ones included, are both applied; changes to the same lines
or two additions at one place are a conflict, written between marker lines for the author::

    <<<<<<< their version [#1 3f2a9c]
    the other save's lines
    ======= your version [#1 3f2a9c]
    the author's lines
    >>>>>>> [#1 3f2a9c]

The token comes from the form's version, so a note *about* git's markers is left alone. Line
endings are normalised first, as browsers post ``\\r\\n`` and imports store ``\\n``.
"""

import difflib
import hashlib
import re
from dataclasses import dataclass

THEIRS, MINE, BOTH = "theirs", "mine", "both"
CHOICES = (THEIRS, MINE, BOTH)


def normalise(text):
    """``\\n`` line endings, and the outer blank space form fields strip, so a text saved
    through the form and the same text imported are the same."""
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    return text + "\n" if text else ""


def lines_of(text):
    return tuple(normalise(text).splitlines(keepends=True))


@dataclass(frozen=True)
class Chunk:
    """A stretch of the merged text: the base's lines and each side's lines for them."""

    base: tuple
    theirs: tuple
    mine: tuple

    @property
    def kind(self):
        if self.theirs == self.mine:
            return "same" if self.theirs == self.base else "both"
        if self.mine == self.base:
            return THEIRS
        if self.theirs == self.base:
            return MINE
        return "conflict"

    def merged(self):
        """The lines when the merge needs no decision (a conflict: None)."""
        return {"same": self.base, "both": self.mine, THEIRS: self.theirs, MINE: self.mine}.get(
            self.kind
        )


@dataclass(frozen=True)
class Merge:
    chunks: tuple

    @property
    def conflicts(self):
        return [chunk for chunk in self.chunks if chunk.kind == "conflict"]

    @property
    def theirs_applied(self):
        """How many of the other save's changes went into the author's text unasked."""
        return sum(chunk.kind == THEIRS for chunk in self.chunks)

    def text(self, token="", labels=("", "")):
        """The merged text, each conflict between marker lines (see the module docstring)."""
        out, number = [], 0
        for chunk in self.chunks:
            lines = chunk.merged()
            if lines is not None:
                out.extend(lines)
                continue
            number += 1
            out.append(_marker("<", labels[0], number, token))
            out.extend(_closed(chunk.theirs))
            out.append(_marker("=", labels[1], number, token))
            out.extend(_closed(chunk.mine))
            out.append(_marker(">", "", number, token))
        return "".join(out)


def merge(base, theirs, mine):
    """Merge ``theirs`` and ``mine``, both edited from ``base``: a :class:`Merge`."""
    base, theirs, mine = lines_of(base), lines_of(theirs), lines_of(mine)
    hunks = sorted(
        [(start, end, lines, THEIRS) for start, end, lines in _changes(base, theirs)]
        + [(start, end, lines, MINE) for start, end, lines in _changes(base, mine)],
        key=lambda hunk: (hunk[0], hunk[1]),
    )
    chunks, position, index = [], 0, 0
    while index < len(hunks):
        group = [hunks[index]]
        index += 1
        while index < len(hunks) and any(_overlap(hunks[index], hunk) for hunk in group):
            group.append(hunks[index])
            index += 1
        start, end = group[0][0], max(hunk[1] for hunk in group)
        if position < start:
            same = base[position:start]
            chunks.append(Chunk(same, same, same))
        chunks.append(
            Chunk(
                base[start:end],
                _apply(base, start, end, [h for h in group if h[3] == THEIRS]),
                _apply(base, start, end, [h for h in group if h[3] == MINE]),
            )
        )
        position = end
    if position < len(base):
        same = base[position:]
        chunks.append(Chunk(same, same, same))
    return Merge(tuple(chunks))


def two_way(theirs, mine):
    """Without the base, nothing says whose change a difference is: each is a conflict."""
    theirs, mine = lines_of(theirs), lines_of(mine)
    chunks = []
    matcher = difflib.SequenceMatcher(None, theirs, mine, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        same = theirs[i1:i2]
        # base None: unlike either side, so the chunk is a conflict.
        chunks.append(Chunk(same, same, same) if tag == "equal" else Chunk(None, same, mine[j1:j2]))
    return Merge(tuple(chunks))


def _overlap(one, other):
    """Whether two changes (base ranges) overlap: their lines intersect, both insert at one place,
    or one inserts inside the other's lines; adjacent changes do not."""
    (start, end), (other_start, other_end) = one[:2], other[:2]
    if start == end and other_start == other_end:
        return start == other_start
    if start == end:
        return other_start < start < other_end
    if other_start == other_end:
        return start < other_start < end
    return start < other_end and other_start < end


def _changes(base, other):
    # autojunk off: Markdown repeats blank lines, which autojunk would ignore in long texts.
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [
        (i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def _apply(base, start, end, hunks):
    out, position = [], start
    for hunk_start, hunk_end, lines, _side in hunks:
        out.extend(base[position:hunk_start])
        out.extend(lines)
        position = hunk_end
    out.extend(base[position:end])
    return tuple(out)


def _closed(lines):
    """The lines with a final newline, so that a marker never joins the last one."""
    if lines and not lines[-1].endswith("\n"):
        return (*lines[:-1], lines[-1] + "\n")
    return lines


# --- markers --------------------------------------------------------------------------------


def merge_token(version):
    """The short token of the markers written for the form at ``version``."""
    return hashlib.sha256(str(version).encode()).hexdigest()[:6]


def _marker(kind, label, number, token):
    label = f" {label}" if label else ""
    return f"{kind * 7}{label} [#{number} {token}]\n"


_MARKER = re.compile(r"^([<=>])\1{6}(?: .*)? \[#(\d+) ([0-9a-f]{6})\]$")


@dataclass(frozen=True)
class MarkedConflict:
    """A conflict as its markers hold it in the text now (the author may have edited it)."""

    number: int
    theirs: str
    mine: str
    start: int  # line numbers of its first and last marker lines
    end: int

    def choose(self, choice):
        return {THEIRS: self.theirs, MINE: self.mine, BOTH: self.theirs + self.mine}[choice]


def marked_conflicts(text, token):
    """The well-formed conflicts between ``token``'s markers in ``text``, and whether marker lines
    of ``token`` are left over (the author removed a part by hand)."""
    lines = normalise(text).splitlines(keepends=True)
    found, open_, stray = [], None, False
    for number, line in enumerate(lines):
        match = _MARKER.match(line.rstrip("\n"))
        if match is None or match.group(3) != token:
            continue
        kind, conflict = match.group(1), int(match.group(2))
        if kind == "<":
            stray = stray or open_ is not None
            open_ = [conflict, number, None]
        elif kind == "=" and open_ is not None and open_[0] == conflict and open_[2] is None:
            open_[2] = number
        elif kind == ">" and open_ is not None and open_[0] == conflict and open_[2] is not None:
            conflict, start, middle = open_
            found.append(
                MarkedConflict(
                    conflict,
                    "".join(lines[start + 1 : middle]),
                    "".join(lines[middle + 1 : number]),
                    start,
                    number,
                )
            )
            open_ = None
        else:
            stray = True
    return found, stray or open_ is not None


def resolve(text, token, choices):
    """``text`` with each marked conflict that has a choice (``{number: "theirs"}``) replaced by the
    chosen lines, and the conflicts left undecided."""
    conflicts, _stray = marked_conflicts(text, token)
    if not conflicts:
        return text, []
    lines = normalise(text).splitlines(keepends=True)
    undecided = []
    for conflict in reversed(conflicts):
        choice = choices.get(conflict.number)
        if choice not in CHOICES:
            undecided.append(conflict)
            continue
        lines[conflict.start : conflict.end + 1] = [conflict.choose(choice)]
    return "".join(lines), undecided[::-1]
