"""CJK-aware text statistics: word counts, reading time and excerpts of plain text.

Each Han, kana or hangul character is one word, and so is each Latin run ("H100", "don't"); reading
time is ``ceil(han / 300 + latin / 200)`` minutes, at least 1.
"""

import math
import re

import regex

from blog.text.cjk import CJK_RE as _CJK_RE
from blog.text.cjk import has_cjk
from blog.text.sentences import ends_cjk_punctuation, is_complete, sentence_spans, starts_cjk

HAN_PER_MINUTE = 300
WORDS_PER_MINUTE = 200


def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())


_WORD_RE = re.compile(r"\w+(?:['’.]\w+)*")


def count_han_and_latin(text: str) -> tuple[int, int]:
    """(CJK characters, Latin-script words) in ``text``."""
    han = len(_CJK_RE.findall(text))
    return han, len(_WORD_RE.findall(_CJK_RE.sub(" ", text)))


def reading_minutes(word_count_han: int, word_count_latin: int) -> int:
    minutes = word_count_han / HAN_PER_MINUTE + word_count_latin / WORDS_PER_MINUTE
    return max(1, math.ceil(minutes))


# User-perceived characters (extended grapheme clusters): a base and its combining marks, a
# ZWJ emoji sequence, a flag. An excerpt is never cut inside one.
_clusters = regex.compile(r"\X").findall


def _tokens(text: str):
    """(token, kind) with kind in "space", "cjk", "word", "punct", "other"."""
    word: list[str] = []
    for cluster in _clusters(text):
        base = cluster[0]
        if (base.isalnum() or base == "_") and not _CJK_RE.match(base):
            word.append(cluster)
            continue
        if word and base in "'’." and cluster == base:
            word.append(cluster)  # maybe inside a word ("don't", "3.14"); settled below
            continue
        if word:
            yield from _flush(word)
            word = []
        if base.isspace():
            yield cluster, "space"
        elif _CJK_RE.match(base):
            yield cluster, "cjk"
        elif base.isascii():
            yield cluster, "punct"
        else:
            yield cluster, "other"
    if word:
        yield from _flush(word)


def _flush(word: list[str]):
    # Joiners are only part of a word when a letter follows them.
    trailing = []
    while word and word[-1] in {"'", "’", "."}:
        trailing.insert(0, word.pop())
    yield "".join(word), "word"
    for ch in trailing:
        yield ch, "punct"


_TRAILING_PUNCT = " ,，、;；:：.。!！?？-–—·…(（[【《〈「『“‘\"'"

# What the rendering step leaves in the prose an excerpt is made of (private-use characters,
# which nobody types): where one block of prose ends and the next begins, and where a code
# block, a table or a display formula stood that the excerpt leaves out.
PARAGRAPH_BREAK = "\ue000"
LEFT_OUT = "\ue001"
_MARKERS = f"{PARAGRAPH_BREAK}{LEFT_OUT}"
# A run of breaks (the renderer marks both ends of a block): it is a left-out block if one is.
_MARKERS_RE = re.compile(f"([\\s{_MARKERS}]*[{_MARKERS}][\\s{_MARKERS}]*)")
# After a left-out block, what reads as going on from it: "where n is…", ", so…", "其中 M 是…".
_CONTINUATION_RE = re.compile(r"[,，、;；:：.。)）]|[a-z]|(?:其中|式中)")


def _costs(han_limit: int, word_limit: int) -> dict[str, float]:
    return {
        "cjk": 1 / han_limit,
        "other": 1 / han_limit,
        "punct": 0.25 / han_limit,
        "word": 1 / word_limit,
        "space": 0.0,
    }


def _cost(text: str, costs: dict[str, float]) -> float:
    return sum(costs[kind] for _, kind in _tokens(text))


def _cut(text: str, costs: dict[str, float]) -> str:
    """``text`` cut to the budget between tokens, with "…" if anything was cut."""
    budget, taken, length = 1.0 + 1e-9, 0.0, 0
    for token, kind in _tokens(text):
        taken += costs[kind]
        if taken > budget:
            return text[:length].rstrip(_TRAILING_PUNCT) + "…"
        length += len(token)
    return text


def _sentences(text: str) -> list[tuple[str, str | None]]:
    """(sentence, the text before it) for every sentence of ``text`` that makes sense alone: not
    those that run into a block marked :data:`LEFT_OUT`, nor those that go on from it."""
    kept = []
    pieces = _MARKERS_RE.split(text)
    # For the piece at hand: None if no left-out block comes right before it; else whether
    # that block came before a sentence had ended (it was part of one, or a colon introduced
    # it), so that what follows may go on from it.
    open_block = None
    for i in range(0, len(pieces), 2):
        piece = collapse_whitespace(pieces[i])
        run = pieces[i + 1] if i + 1 < len(pieces) else ""
        before_left_out = LEFT_OUT in run
        spans, previous_end = sentence_spans(piece), None
        for j, (start, end) in enumerate(spans):
            sentence = piece[start:end]
            dropped = (j == len(spans) - 1 and before_left_out and not is_complete(sentence)) or (
                j == 0 and _reads_on(sentence, open_block)
            )
            if not dropped:
                glue = piece[previous_end:start] if previous_end is not None else None
                kept.append((sentence, glue))
            previous_end = None if dropped else end
        if before_left_out:
            open_block = not (spans and is_complete(piece[spans[-1][0] : spans[-1][1]]))
        elif piece:
            open_block = None  # prose between: nothing goes on from a block
    return kept


def _reads_on(sentence: str, open_block: bool | None) -> bool:
    """Whether ``sentence``, the first after a left-out block (``open_block`` None: not after
    one), goes on from that block rather than starting afresh."""
    if open_block is None:
        return False
    if not any(char.isalnum() for char in sentence):
        return True  # punctuation the block left behind: "$$…$$."
    if not open_block or _CONTINUATION_RE.match(sentence) is None:
        return False
    return not (sentence[0].islower() and has_cjk(sentence))  # "naive 实现会…" starts afresh


def _join(before: str, after: str) -> str:
    """The separator between two sentences that were not side by side in the text."""
    return "" if ends_cjk_punctuation(before) and starts_cjk(after) else " "


def make_excerpt(text: str, han_limit: int = 120, word_limit: int = 50) -> str:
    """Whole sentences from the start of ``text``, within ``han_limit`` Han characters or
    ``word_limit`` words; only an overlong first sentence is cut, with "…". May be empty."""
    costs = _costs(han_limit, word_limit)
    sentences = _sentences(text or "")
    excerpt, taken = "", 0.0
    for sentence, glue in sentences:
        taken += _cost(sentence, costs)
        if taken > 1.0 + 1e-9:
            return excerpt or _cut(sentence, costs)
        if excerpt:
            excerpt += glue if glue is not None else _join(excerpt, sentence)
        excerpt += sentence
    return excerpt
