"""Where sentences end, in Chinese, English and text that mixes them (for excerpts).

A sentence ends after 。！？ or after . ! ? and a space, with closing quotes; "3.14", "e.g." and
initials go on. A sentence is complete when it ends so.
"""

import re

from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION

CJK_TERMINALS = "。！？"
LATIN_TERMINALS = ".!?"
CLOSERS = "”’」』）)》〉】]\"'"
_ABBREVIATIONS = {"vs", "cf", "al", "dr", "mr", "mrs", "ms", "prof", "fig", "eq", "no", "resp"}

_END_RE = re.compile(
    f"(?:[{CJK_TERMINALS}]+|[{re.escape(LATIN_TERMINALS)}]+)[{re.escape(CLOSERS)}]*"
)
_WORD_BEFORE_RE = re.compile(r"(\w+)$")
_CJK_START_RE = re.compile(f"[{CJK_CHARS}{CJK_PUNCTUATION}]")


def _ends_here(text: str, match: re.Match) -> bool:
    if match.group()[0] in CJK_TERMINALS:
        return True
    after = text[match.end() : match.end() + 1]
    if after and not after.isspace():
        # "3.14", "a.b": not an end; "好吗?下一句": ASCII ! or ? before Chinese is.
        return match.group()[0] in "!?" and _CJK_START_RE.match(after) is not None
    if match.group()[0] == ".":
        word = _WORD_BEFORE_RE.search(text, 0, match.start())
        if word and (
            (len(word[1]) == 1 and word[1].isalpha()) or word[1].lower() in _ABBREVIATIONS
        ):
            return False  # "e.g. x", "J. Smith", "vs. y"
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, without the spaces between them."""
    spans, start = [], 0
    for match in _END_RE.finditer(text):
        if _ends_here(text, match):
            spans.append((start, match.end()))
            start = match.end()
    spans.append((start, len(text)))
    trimmed = []
    for start, end in spans:
        chunk = text[start:end]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            trimmed.append((start + lead, start + len(chunk.rstrip())))
    return trimmed


def is_complete(sentence: str) -> bool:
    """Whether ``sentence`` ends with a full stop, question mark or exclamation mark."""
    core = sentence.rstrip().rstrip(CLOSERS)
    return bool(core) and core[-1] in CJK_TERMINALS + LATIN_TERMINALS


def starts_cjk(text: str) -> bool:
    return _CJK_START_RE.match(text) is not None


def ends_cjk_punctuation(text: str) -> bool:
    return bool(text) and re.match(f"[{CJK_PUNCTUATION}]", text[-1]) is not None
