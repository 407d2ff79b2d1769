"""A translated note's sync state in front matter: biji's own key ``translation_synced``.

Each note of a translated pair remembers its translation's block hashes as they were when it
was last brought in line (``Note.synced_hashes``, :mod:`blog.models.translation_sync`); the
note is behind when the translation's text has changed since. Hashes, unlike revision ids,
mean the same in any database, so writing them out keeps "behind" through a round trip:

* ``translation_synced: [3f2a…, 91c0…]``: the translation's hashes, one per block, in order;
* ``translation_synced: []``: the pair was never compared from this side, and the note is
  never behind (the original of a started translation, which does not follow the draft);
* no key: the note has no translation. A file without the key (any other generator's) gets
  what linking gives: a pair an import forms starts in line both ways.

A list, written on one line as ``tags`` are: each hash an item, quoted where YAML would read
it as something else (``'1000000000000000'``, a number). Reading is lenient about the shape
(a space- or comma-separated text is a list too) and strict about the hashes: anything else is
ignored and reported (:class:`SyncStateError`), and the note keeps the state it has.
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
    """The ``synced_hashes`` a front-matter value stands for ("" for an empty value: never
    compared); :class:`SyncStateError` if it is not block hashes."""
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
