"""Results' order as one integer a note: the rowid of SQLite's search tables.

Search ranks, then shows the newest first. A note's *order key* sorts as that second rule does,
its publication time to the second and then its id, and keeps the id in its low
:data:`ID_BITS` bits. So an FTS5 match list is a list of notes newest first, which FTS5 walks
from either end and stops at a page's end without reading a row, and "published by now" is a
range of keys: notes never published sort below every published one (docs/performance.md,
"Growing to 100,000 notes"). Note ids stay below ``2 ** ID_BITS``.

May import: the standard library.
"""

import math

ID_BITS = 30
ID_MASK = (1 << ID_BITS) - 1
# Times 2 ** 32 seconds (~136 years) or more from 1970 sort as if at that end of the range.
_SECONDS = (1 << 32) - 1
FIRST_PUBLISHED = -_SECONDS << ID_BITS  # the lowest key of a published note
UNPUBLISHED = -(1 << 62)  # a draft's key: this and its id, below FIRST_PUBLISHED


def _seconds(moment) -> int:
    return max(-_SECONDS, min(_SECONDS, math.floor(moment.timestamp())))


def order_key(note_id: int, published_at, published: bool) -> int:
    """The key of a note: ``published`` is its status, ``published_at`` its time (or None)."""
    if not published or published_at is None:
        return UNPUBLISHED + note_id
    return (_seconds(published_at) << ID_BITS) + note_id


def last_key_at(moment) -> int:
    """The highest key of a note published at ``moment`` or before, to the second."""
    return (_seconds(moment) << ID_BITS) | ID_MASK


def note_id(key: int) -> int:
    return key & ID_MASK
