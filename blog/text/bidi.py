"""The bidirectional control characters; :func:`strip_explicit_bidi` clears titles of the explicit
ones, which reverse what follows, and keeps the marks right-to-left text needs.

May import: nothing of biji's.
"""

# Embeddings and overrides (LRE, RLE, PDF, LRO, RLO), isolates (LRI, RLI, FSI, PDI).
EXPLICIT = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK, ARABIC LETTER MARK.
MARKS = frozenset("\u200e\u200f\u061c")
BIDI_CONTROLS = EXPLICIT | MARKS

_WITHOUT_EXPLICIT = dict.fromkeys(map(ord, EXPLICIT))


def strip_explicit_bidi(text: str) -> str:
    """``text`` without embeddings, overrides and isolates; its direction marks kept."""
    return text.translate(_WITHOUT_EXPLICIT)
