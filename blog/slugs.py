"""ASCII slugs for titles in any language: English words stay, Han characters become pinyin."""

from django.utils.text import slugify
from pypinyin import lazy_pinyin

MAX_SLUG_LENGTH = 80


def ascii_slug(text, max_length=MAX_SLUG_LENGTH):
    """Return a stable ASCII slug.

    ``"在 H100 上超越 cuBLAS"`` → ``"zai-h100-shang-chao-yue-cublas"``.

    Each Han character becomes a separate pinyin syllable (without tones), so the slug reads
    aloud and never depends on the reader's locale. Characters pypinyin leaves alone (Latin
    letters, digits, punctuation) pass through Django's ``slugify``.
    """
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
