"""ASCII slugs for titles in any language: English words stay, Han characters become pinyin."""

import re
import unicodedata

from django.utils.text import slugify

from blog.text.cjk import HAN_CHARS

MAX_SLUG_LENGTH = 80


def ascii_slug(text, max_length=MAX_SLUG_LENGTH):
    """A stable ASCII slug: ``"在 H100 上超越 cuBLAS"`` → ``"zai-h100-shang-chao-yue-cublas"``, one
    toneless pinyin syllable per Han character, independent of the reader's locale."""
    # Imported here: pypinyin's dictionaries take 0.3 s to load, a fifth of every process's
    # start (gunicorn workers, manage.py), and most processes never make a slug.
    from pypinyin import lazy_pinyin

    words = lazy_pinyin(text or "", errors="default")
    slug = slugify(" ".join(words))
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0] or slug[:max_length]
    return slug.strip("-")


def unique_slug(base, taken, max_length=MAX_SLUG_LENGTH):
    """Return ``base`` or ``base-2``, ``base-3``… whichever ``taken(slug)`` says is free."""
    base = (base or "note")[: max_length - 4].strip("-") or "note"
    slug, n = base, 2
    while taken(slug):
        slug, n = f"{base}-{n}", n + 1
    return slug


PROPOSED_SLUG_LENGTH = 50
PROPOSED_SLUG_WORDS = 6  # a Chinese character counts half: most Chinese words have two
_HAN_RUN_RE = re.compile(f"([{HAN_CHARS}]+)")
# "C++", "C#", "F#": slugify would leave a bare "c" of each.
_LANGUAGE_NAME_RE = re.compile(r"\b([A-Za-z])(\+\+|#)(?!\w)")
_SPELLED = {"++": "pp", "#": "sharp"}
_PARTICLE = ("的", "de5")  # "X 的 Y": the possessive particle, neutral tone; not 目的 mùdì


def _slug_words(title):
    """The words of ``title`` as slug parts, in order, each with its weight in half words:
    Latin words and digits slugified (2), each Han character as its toneless pinyin (1)."""
    from pypinyin import Style, lazy_pinyin  # lazily: see ascii_slug

    words = []
    # NFKC first: full-width "Ｈ１００" is "H100", and slugify would drop it.
    for i, chunk in enumerate(_HAN_RUN_RE.split(unicodedata.normalize("NFKC", title))):
        if i % 2 == 0:  # between Han runs: English words, digits, punctuation
            chunk = _LANGUAGE_NAME_RE.sub(lambda m: m[1] + _SPELLED[m[2]], chunk)
            words += [(word, 2) for word in slugify(chunk).split("-") if word.strip("_")]
            continue
        # The tone number says which reading pypinyin chose from the context: that is how
        # the particle 的 (de5) is told from 的 in a word (目的 di4, 的确 di2).
        syllables = lazy_pinyin(chunk, style=Style.TONE3, neutral_tone_with_five=True)
        if len(syllables) == len(chunk):
            syllables = [s for c, s in zip(chunk, syllables, strict=True) if (c, s) != _PARTICLE]
        words += [(word, 1) for word in (slugify(s.rstrip("12345")) for s in syllables) if word]
    return words


def proposed_slug(title, max_length=PROPOSED_SLUG_LENGTH, max_words=PROPOSED_SLUG_WORDS):
    """The short slug the editor proposes for a new note's ``title``: Latin words lowercased,
    Chinese as toneless pinyin without 的, cut between words at ``max_words`` or ``max_length``."""
    words = _slug_words(title or "")
    parts, length, budget = [], -1, 2 * max_words
    for word, weight in words:
        length, budget = length + 1 + len(word), budget - weight
        if length > max_length or budget < 0:
            break
        parts.append(word)
    if words and not parts:
        return words[0][0][:max_length].strip("_")  # one word longer than a slug may be
    return "-".join(parts)
