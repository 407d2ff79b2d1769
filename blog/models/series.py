"""Placing a note in a series with its translation, and counting parts: a part's number is its
position, so a part not out yet is "still to come", never renumbered around."""

from dataclasses import dataclass

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


@dataclass(frozen=True)
class PartNumbers:
    """The parts readers see, counted by :func:`part_numbers`."""

    total: int | None  # the highest number shown: "Part n of total"
    missing: tuple[int, ...]  # numbers under it that no part shown holds: still to come
    unnumbered: int  # parts without a position, listed after the numbered ones

    @property
    def count(self):
        """The parts a reader is told of: every number up to the total, and the unnumbered."""
        return (self.total or 0) + self.unnumbered


def part_numbers(positions):
    """:class:`PartNumbers` of the parts shown, given their positions (None: unnumbered)."""
    numbers = {position for position in positions if position is not None}
    total = max(numbers, default=None)
    missing = tuple(n for n in range(1, total + 1) if n not in numbers) if total else ()
    return PartNumbers(total, missing, sum(position is None for position in positions))
