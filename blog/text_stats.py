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
import unicodedata

HAN_PER_MINUTE = 300
WORDS_PER_MINUTE = 200


def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())


# Han (with extensions, compatibility ideographs, radicals, 々 and 〇), kana, hangul and
# bopomofo: the one definition of "CJK character", shared with search (blog.search.text).
CJK_CHARS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3040-\u30ff"
    "\u3100-\u312f\u3130-\u318f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U000323af"
)
_CJK_RE = re.compile(f"[{CJK_CHARS}]")
_WORD_RE = re.compile(r"\w+(?:['’.]\w+)*")


def count_han_and_latin(text: str) -> tuple[int, int]:
    """(CJK characters, Latin-script words) in ``text``."""
    han = len(_CJK_RE.findall(text))
    return han, len(_WORD_RE.findall(_CJK_RE.sub(" ", text)))


def count_words(text: str) -> int:
    han, latin = count_han_and_latin(text or "")
    return han + latin


def reading_minutes(word_count_han: int, word_count_latin: int) -> int:
    minutes = word_count_han / HAN_PER_MINUTE + word_count_latin / WORDS_PER_MINUTE
    return max(1, math.ceil(minutes))


_ZWJ = "\u200d"


def _is_extender(ch: str) -> bool:
    """Code points that belong to the preceding character (a simplified grapheme rule)."""
    cp = ord(ch)
    return (
        unicodedata.category(ch) in {"Mn", "Me", "Mc"}
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag sequences (subdivision flags)
        or 0xE0100 <= cp <= 0xE01EF
        or 0xDC00 <= cp <= 0xDFFF  # a low surrogate left unpaired by a bad decoder
        or cp == 0x200C
    )


def _clusters(text: str):
    """Split into user-perceived characters: base + combining marks, ZWJ emoji, flags."""
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        if 0x1F1E6 <= ord(text[i]) <= 0x1F1FF and j < n and 0x1F1E6 <= ord(text[j]) <= 0x1F1FF:
            j += 1  # a regional-indicator pair is one flag
        while j < n:
            if _is_extender(text[j]):
                j += 1
            elif text[j] == _ZWJ:
                j = min(j + 2, n)  # ZWJ glues the next character on
            else:
                break
        yield text[i:j]
        i = j


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
