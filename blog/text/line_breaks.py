"""Where mixed Chinese and Latin text may break, by the browser's kinsoku rules, for text drawn
outside one (share cards). Widths are the caller's ``measure(text, size)``."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import regex

from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION

# Never at the start of a line (CSS line-break: strict's closing punctuation and more).
NO_START = frozenset(
    "、。，．：；？！）」』》〉】〕］｝〗〙〛〞”’…‥・·～％‰°℃ー々〻ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
    ",.:;?!)]}%"
)
# Never at the end of a line.
NO_END = frozenset("（「『《〈【〔［｛〖〘〚〝“‘([{")
# Written twice as one mark: ——, ……
DOUBLED = frozenset("—…")
ELLIPSIS = "…"
# Dropped before an ellipsis: "标题，…" reads as a broken sentence, "标题…" as a shortened one.
TRAILING_PUNCTUATION = "、，,：:；;·—-"

_clusters = regex.compile(r"\X").findall
_WIDE = regex.compile(f"[{CJK_CHARS}{CJK_PUNCTUATION}“”‘’…—·]")

Measure = Callable[[str, int], float]


def _is_wide(cluster: str) -> bool:
    return _WIDE.match(cluster) is not None


def _may_break(before: str, after: str) -> bool:
    """May a line break between the clusters ``before`` and ``after``?"""
    if after.isspace():
        return False  # a space stays at the end of the line it ends
    if after[0] in NO_START or before[-1] in NO_END:
        return False
    if before[-1] in DOUBLED and after[0] == before[-1]:
        return False
    if before.isspace():
        return True
    return _is_wide(before) or _is_wide(after)


def segments(text: str) -> list[str]:
    """``text`` (whitespace collapsed) as the pieces a line holds whole: a line breaks only
    between two of them. A piece keeps its trailing space."""
    clusters = _clusters(" ".join(text.split()))
    pieces: list[str] = []
    for index, cluster in enumerate(clusters):
        if pieces and not _may_break(clusters[index - 1], cluster):
            pieces[-1] += cluster
        else:
            pieces.append(cluster)
    return pieces


def wrap(pieces: Sequence[str], width: float, measure: Callable[[str], float]) -> list[list[str]]:
    """The pieces in lines of at most ``width`` (greedy, as a browser fills lines). A piece
    wider than a whole line gets a line of its own, and overflows it."""
    lines: list[list[str]] = []
    line: list[str] = []
    for piece in pieces:
        if line and measure(("".join(line) + piece).rstrip()) > width:
            lines.append(line)
            line = []
        line.append(piece)
    if line:
        lines.append(line)
    return lines


def line_text(line: Sequence[str]) -> str:
    return "".join(line).strip()


@dataclass(frozen=True)
class Fitted:
    size: int
    lines: list[str]
    shortened: bool  # an ellipsis ends the last line: the text did not fit whole


def fit(text: str, width: float, measure: Measure, *, sizes: Sequence[int], max_lines):
    """Set ``text`` in at most ``max_lines`` (a number, or a function of the size) lines of
    ``width``, at the largest of ``sizes`` that fits, else the smallest with an ellipsis."""
    lines_at = max_lines if callable(max_lines) else (lambda size: max_lines)
    pieces = segments(text)
    for size in sizes:
        lines = wrap(pieces, width, lambda s, size=size: measure(s, size))
        if len(lines) <= lines_at(size) and all(
            measure(line_text(line), size) <= width for line in lines
        ):
            return Fitted(size, [line_text(line) for line in lines], False)
    size = sizes[-1]

    def measure_at(s):
        return measure(s, size)

    # A word wider than the whole line even at the smallest size is split between its
    # characters: the one case where a Latin word is cut, rather than drawn past the edge.
    pieces = [
        part
        for piece in pieces
        for part in (_clusters(piece) if measure_at(piece.rstrip()) > width else [piece])
    ]
    lines = wrap(pieces, width, measure_at)
    most = max(1, lines_at(size))
    if len(lines) <= most:
        return Fitted(size, [line_text(line) for line in lines], False)
    kept = lines[: most - 1]
    last = list(lines[most - 1])
    return Fitted(
        size,
        [line_text(line) for line in kept] + [_with_ellipsis(last, width, measure_at)],
        True,
    )


def _with_ellipsis(line: list[str], width: float, measure: Callable[[str], float]) -> str:
    """The line shortened at a break point until it fits with an ellipsis after it."""

    def shortened(pieces):
        return line_text(pieces).rstrip(TRAILING_PUNCTUATION).rstrip() + ELLIPSIS

    while len(line) > 1 and measure(shortened(line)) > width:
        line.pop()
    text = shortened(line)
    if measure(text) <= width:
        return text
    clusters = _clusters(line_text(line))  # one piece too wide: cut between characters
    while clusters and measure("".join(clusters) + ELLIPSIS) > width:
        clusters.pop()
    return "".join(clusters) + ELLIPSIS
