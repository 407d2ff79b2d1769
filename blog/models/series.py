"""Placing a note in a series: the note and its translation move together."""

from django.db import transaction

from blog.models.translations import bring_translation_along


@transaction.atomic
def place_in_series(note, series, position):
    """Put a saved note at ``position`` of ``series`` (``None``: out of any series); its
    translation follows (:mod:`blog.models.translations`)."""
    note.series = series
    note.series_position = position if series is not None else None
    note.save(update_fields=["series", "series_position"])
    bring_translation_along(note)
