"""A translated note's sync state in front matter: biji's own key ``translation_synced``.

The translation's block hashes when the note was last brought in line (``Note.synced_hashes``):
unlike revision ids they mean the same in any database, so "behind" survives a round trip.
Reading is lenient about the shape, strict about the hashes (:class:`SyncStateError`).
"""

import re

from django.utils.translation import gettext_lazy as _

from blog.porting.report import shorten
from blog.porting.wording import worded

KEY = "translation_synced"
# What blog.text.blocks makes: the first 16 hex digits of a block's SHA-256.
HASH = re.compile(r"[0-9a-f]{16}")
SEPARATORS = re.compile(r"[\s,]+")


class SyncStateError(ValueError):
    """The key's value is not a list of block hashes; the message is worded when shown."""


def exported(note, translation):
    """The key's value for ``note`` whose translation is ``translation``: its sync state as
    a list of hashes (empty: never compared), or None (no translation: no key)."""
    if translation is None:
        return None
    return note.synced_hashes.split()


def read(value, key=KEY):
    """The ``synced_hashes`` a value stands for ("": never compared), or :class:`SyncStateError`."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, str):
        items = [part for part in SEPARATORS.split(value.strip()) if part]
    elif isinstance(value, list):
        items = value
    else:
        items = [value]
    if all(isinstance(item, str) and HASH.fullmatch(item.strip().lower()) for item in items):
        return " ".join(item.strip().lower() for item in items)
    not_hashes = _("%(key)s: %(value)s is not a list of block hashes: ignored")
    raise SyncStateError(worded(not_hashes, key=key, value=shorten(repr(value))))
