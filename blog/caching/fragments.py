"""A note's entry in the lists, rendered once per content state and language in the shared cache
(it shows on many pages) and fetched for a whole page in one round trip.
"""

from django.db.models import prefetch_related_objects
from django.template.loader import get_template
from django.utils import translation
from django.utils.safestring import mark_safe

from blog.caching import parts, store
from blog.caching.keys import KEPT_SECONDS, versioned_key

TEMPLATE = "includes/note_item.html"


def rendered_entries(notes, *, first_number=None, hide_series=False):
    """The HTML of each note's entry, in order. ``first_number``: on a series' page, the first
    entry's part number; ``hide_series``: leave out the series link."""
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
        store.set_many(made, KEPT_SECONDS)
        found = {**found, **made}
    return [mark_safe(found[key]) for key in keys]  # noqa: S308 (our template's output)


def _render(contexts):
    """Render entries, the tags of all their notes read in one query."""
    contexts = list(contexts)
    prefetch_related_objects([c["note"] for c in contexts], "tags")
    template = get_template(TEMPLATE)
    return [template.render(context) for context in contexts]
