"""ASCII slugs for titles in any language: English words stay, Han characters become pinyin."""

import re

from django.utils.text import slugify

MAX_SLUG_LENGTH = 80


def ascii_slug(text, max_length=MAX_SLUG_LENGTH):
    """Return a stable ASCII slug.

    ``"在 H100 上超越 cuBLAS"`` → ``"zai-h100-shang-chao-yue-cublas"``.

    Each Han character becomes a separate pinyin syllable (without tones), so the slug reads
    aloud and never depends on the reader's locale. Characters pypinyin leaves alone (Latin
    letters, digits, punctuation) pass through Django's ``slugify``.
    """
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


PROPOSED_SLUG_LENGTH = 40
_LATIN_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:[.+#'’][A-Za-z0-9]+)*")


def _cut(slug, max_length):
    """``slug`` shortened to ``max_length`` between two words where it can be."""
    if len(slug) > max_length:
        head = slug[:max_length]
        slug = head.rsplit("-", 1)[0] if "-" in head else head
    return slug.strip("-")


def proposed_slug(title, max_length=PROPOSED_SLUG_LENGTH):
    """The short slug the editor proposes for a new note's ``title`` (≤ ``max_length``).

    A title with English words keeps those alone: ``"在 H100 上超越 cuBLAS"`` → ``"h100-cublas"``.
    A title without any (only Han characters, maybe digits) becomes its first pinyin
    syllables: ``"调度器的设计与实现"`` → ``"diao-du-qi-de-she-ji-yu-shi-xian"``. The cut falls
    between two words, never inside one. The author sees the proposal in the slug field and
    may change it before the first save; afterwards nothing changes it by itself.
    """
    title = title or ""
    words = _LATIN_WORD_RE.findall(title)
    if any(re.search("[A-Za-z]", word) for word in words):
        slug = slugify(" ".join(words))
    else:
        slug = ascii_slug(title, max_length=4 * max_length)
    return _cut(slug, max_length)
