"""A note's entry in the lists (home, tags, series, archive), rendered once per content version.

An entry (``includes/note_item.html``: title, language marker, date, series, excerpt, tags)
took ~0.5 ms to render, ten times what the rest of a list page costs, and the same note appears
on many pages: home, its tags, its series, its archive month. Entries are kept in the shared
cache under the content version's key (:func:`blog.caching.version.current`), so any public
change, or a deploy, gives new keys and an entry is never stale; they are fetched for a whole
page in one round trip (:func:`blog.caching.store.get_many`; an unreachable cache renders them
all).
"""

from django.db.models import prefetch_related_objects
from django.template.loader import get_template
from django.utils import translation
from django.utils.safestring import mark_safe

from blog.caching import parts, store
from blog.caching.keys import versioned_key

TEMPLATE = "includes/note_item.html"
TIMEOUT = 86400


def rendered_entries(notes, *, first_number=None, hide_series=False):
    """The HTML of each note's entry, in order. ``first_number``: given on a series' page,
    where each entry shows its part number — the note's position in the series, which a part
    published later never changes (the list's own numbering starts there); ``hide_series``:
    leave out the series link."""
    notes = list(notes)
    parts.depend_on(*(parts.note(note.pk) for note in notes))
    contexts = [
        {
            "note": note,
            "part_number": None if first_number is None else first_number + index,
            "hide_series": hide_series,
        }
        for index, note in enumerate(notes)
    ]
    prefix = versioned_key("entry", translation.get_language())
    keys = [
        f"{prefix}:{c['note'].pk}:{c['part_number'] or 0}:{int(c['hide_series'])}" for c in contexts
    ]
    found = store.get_many(keys)
    missing = [(key, c) for key, c in zip(keys, contexts, strict=True) if key not in found]
    if missing:
        made = dict(zip((key for key, _c in missing), _render(c for _k, c in missing), strict=True))
        store.set_many(made, TIMEOUT)
        found = {**found, **made}
    return [mark_safe(found[key]) for key in keys]  # noqa: S308 (our template's output)


def _render(contexts):
    """Render entries, the tags of all their notes read in one query."""
    contexts = list(contexts)
    prefetch_related_objects([c["note"] for c in contexts], "tags")
    template = get_template(TEMPLATE)
    return [template.render(context) for context in contexts]
