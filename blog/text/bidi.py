"""The one definition of the bidirectional control characters, and text cleared of the ones
that could reverse what follows them.

Unicode's bidirectional algorithm (UAX #9) knows two kinds of invisible controls:

* the *explicit* ones (:data:`EXPLICIT`): embeddings, overrides and isolates and the characters
  that close them. Each opens a state that lasts until it is closed or the paragraph ends, so
  one pasted into a title reverses the title (U+202E, RIGHT-TO-LEFT OVERRIDE, shows "abc"
  as "cba") and whatever a page, a card or a feed reader sets after it: the site's name in
  the window's title, the rest of a share card's line.
* the *marks* (:data:`MARKS`): invisible letters of one direction. They only decide which way
  the spaces, punctuation and digits beside them go, reverse nothing and open no state: an
  Arabic or Hebrew title needs them to place its punctuation and numbers right.

Titles shown as plain text (a page's ``<title>`` and ``og:title``, a feed's titles, share
cards) go through :func:`strip_explicit_bidi`: the explicit controls are removed, the marks
kept. Plain text has no markup to isolate a title with, and the isolating controls (FSI…PDI)
would confine an override without undoing it, while some feed readers, share previews and
mail clients draw them as boxes.

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
