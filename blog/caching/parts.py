"""The parts of what readers see, so that an edit empties only the pages showing what changed.

A page names the parts it shows while it renders (:func:`depend_on`; :data:`SITE` always), and
the page cache keeps it with their versions. Versions are random, not counters, so a restored
database or a deleted row never repeats one.
"""

import contextlib

from asgiref.local import Local

SITE = "site"
NOTES = "notes"
TAGS = "tags"
SERIES_INDEX = "series"
SITEMAP = "sitemap"
GLOSSARY = "glossary"


def note(pk) -> str:
    return f"note:{pk}"


def tag(pk) -> str:
    return f"tag:{pk}"


def series(pk) -> str:
    return f"series:{pk}"


_collected = Local()  # per thread/task: the parts the page being rendered named so far


@contextlib.contextmanager
def collecting():
    """Collect the parts named while the block runs; the set yielded holds :data:`SITE`."""
    outer = getattr(_collected, "names", None)
    names = _collected.names = {SITE}
    try:
        yield names
    finally:
        _collected.names = outer


def depend_on(*names) -> None:
    """The page being rendered shows these parts (a no-op outside :func:`collecting`)."""
    collected = getattr(_collected, "names", None)
    if collected is not None:
        collected.update(names)
