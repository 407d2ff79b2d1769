"""The dates biji accepts: publication times 1970-2200 (:data:`PUBLICATION`; year 1 east of UTC
breaks PostgreSQL reads), original dates 1000-2200 (:data:`ORIGINAL`; ``strftime`` limits)."""

from datetime import datetime

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class YearRange:
    """The years a kind of date may take, and the reason given when it is outside them."""

    def __init__(self, first, last, message):
        self.first, self.last, self.message = first, last, message

    def error(self, value):
        """Why ``value`` (a date, a datetime or a year) is refused, or None if it is not."""
        if value is None:
            return None
        year = value if isinstance(value, int) else _local_year(value)
        if year is not None and self.first <= year <= self.last:
            return None
        return self.message % {"first": self.first, "last": self.last}

    def validate(self, value):
        """A validator: ValidationError with the reason when ``value`` is outside the range."""
        if message := self.error(value):
            raise ValidationError(message, code="date_out_of_range")

    def bounds(self):
        """The first and the last moment of the range in the site's time zone."""
        zone = timezone.get_default_timezone()
        first = datetime(self.first, 1, 1, tzinfo=zone)
        last = datetime(self.last, 12, 31, 23, 59, 59, 999999, tzinfo=zone)
        return first, last


def _local_year(value):
    """The year of ``value`` in the site's time zone; None when it has none there (a time so
    close to year 1 or 9999 that the shift to the site's time zone overflows)."""
    if isinstance(value, datetime) and timezone.is_aware(value):
        try:
            value = value.astimezone(timezone.get_default_timezone())
        except OverflowError:
            return None
    return value.year


PUBLICATION = YearRange(
    1970,
    2200,
    _(
        "Use a date from %(first)s to %(last)s: a publication or edit time outside these "
        "years is a typo, and the database cannot store and sort it reliably."
    ),
)
ORIGINAL = YearRange(
    1000,
    2200,
    _(
        "Use a date from the year %(first)s to %(last)s: dates outside these years cannot be "
        "stored and shown reliably."
    ),
)
