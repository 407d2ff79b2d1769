"""CJK-aware text statistics: word counts, reading time and excerpts of plain text.

Text statistics (documented rule, used for ``word_count`` and reading time):

* every Han character, kana and hangul syllable counts as one word;
* every run of letters/digits/underscores (apostrophes and dots inside it allowed) counts as one
  word: "cuBLAS", "H100", "don't", "e.g", "3.14" are one word each; so
  "在 H100 上超越 cuBLAS" is 4 + 2 = 6;
* reading time is ``ceil(han / 300 + latin / 200)`` minutes, at least 1.
"""

import math
import re

import regex

from blog.text.cjk import CJK_RE as _CJK_RE

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


def make_excerpt(text: str, han_limit: int = 120, word_limit: int = 50) -> str:
    """Cut plain ``text`` to about ``han_limit`` Han characters or ``word_limit`` words.

    Each CJK character (and each emoji or other non-ASCII symbol) costs ``1/han_limit``, each
    Latin word ``1/word_limit``, ASCII punctuation a quarter of a Han character, whitespace
    nothing; tokens are taken while the total stays within 1. Cuts fall between tokens, so a
    word, a surrogate pair, a combining sequence or a ZWJ emoji is never split. "…" is appended
    only when something was cut. Whitespace is collapsed.
    """
    text = collapse_whitespace(text or "")
    cost_of = {
        "cjk": 1 / han_limit,
        "other": 1 / han_limit,
        "punct": 0.25 / han_limit,
        "word": 1 / word_limit,
        "space": 0.0,
    }
    budget, taken, length = 1.0 + 1e-9, 0.0, 0
    for token, kind in _tokens(text):
        taken += cost_of[kind]
        if taken > budget:
            return text[:length].rstrip(_TRAILING_PUNCT) + "…"
        length += len(token)
    return text
