"""Year and month archives on Django's dated generic views, with one aggregated query answering what
they would ask one question at a time: whether a period is empty, its date list, and the
neighbouring periods."""

import datetime
from collections import OrderedDict

from django.conf import settings
from django.db.models import Count
from django.db.models.functions import TruncMonth
from django.http import Http404
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import get_language
from django.views import generic

from blog.caching import memoised, site_settings
from blog.models import Note
from blog.models.notes import in_interface
from blog.public.views.base import PublishedNoteMixin, language_fallbacks, listed_notes

# Years outside this range cannot hold notes and would overflow date arithmetic.
MIN_YEAR, MAX_YEAR = 1970, 9998


def start_of_day(day):
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def months_by_language():
    """``{interface language: [(first day of month, count)]}`` in one query, once per content
    version; the language switch reads the other languages' months."""
    others = site_settings().show_other_languages
    return memoised(f"archive-months:{int(others)}", lambda: _months_by_language(others))


def _months_by_language(others):
    codes = [code for code, _name in settings.LANGUAGES]
    counts = {
        f"count_{index}": Count("pk", filter=in_interface(code, others=others))
        for index, code in enumerate(codes)
    }
    rows = (
        Note.objects.published()
        .annotate(month=TruncMonth("published_at"))
        .values("month")
        .annotate(**counts)
        .order_by("-month")
    )
    result = {code: [] for code in codes}
    for row in rows:
        month = row["month"]
        if isinstance(month, datetime.datetime):
            month = timezone.localtime(month).date() if timezone.is_aware(month) else month.date()
        for index, code in enumerate(codes):
            if row[f"count_{index}"]:
                result[code].append((month.replace(day=1), row[f"count_{index}"]))
    return result


class NoteArchiveMixin(PublishedNoteMixin):
    paginate_by = 20
    month_format = "%m"

    @cached_property
    def months_by_language(self):
        return months_by_language()

    @cached_property
    def months(self):
        return self.months_by_language.get(get_language(), [])

    def period_bounds(self, start, end):
        """Aware datetimes for [start, end) in the current time zone."""
        return {
            "published_at__gte": start_of_day(start),
            "published_at__lt": start_of_day(end),
        }

    def language_fallbacks(self, holds_notes):
        """The archive index for each other language whose months fail ``holds_notes``, so the
        language switch never leads to a 404."""

        def listed():
            return holds_notes([m for m, _n in self.months_by_language.get(get_language(), [])])

        return language_fallbacks(listed, "blog:archive")

    def checked_year(self):
        year = int(self.kwargs["year"])
        if not MIN_YEAR <= year <= MAX_YEAR:
            raise Http404("No notes in that year.")
        return year


class ArchiveIndexView(NoteArchiveMixin, generic.ArchiveIndexView):
    """Every note's title under its month, newest first, paginated; above them, the years and
    months with their counts, linking to their own pages."""

    template_name = "blog/note_archive.html"
    paginate_by = 100

    def get_dated_items(self):
        years = OrderedDict()
        for month, count in self.months:
            entry = years.setdefault(month.year, {"year": month.year, "count": 0, "months": []})
            entry["count"] += count
            entry["months"].append({"date": month, "count": count})
        date_list = [datetime.date(year, 1, 1) for year in years]
        titles = (
            listed_notes()
            .only("pk", "title", "slug", "language", "published_at")
            .order_by("-published_at", "-pk")
        )
        return date_list, titles, {"years": list(years.values())}


class YearArchiveView(NoteArchiveMixin, generic.YearArchiveView):
    template_name = "blog/note_archive_year.html"
    make_object_list = True

    def get_dated_items(self):
        year = self.checked_year()
        months = sorted(m for m, _ in self.months if m.year == year)
        if not months:
            raise Http404("No notes in that year.")
        start = datetime.date(year, 1, 1)
        queryset = self.get_queryset().filter(
            **self.period_bounds(start, datetime.date(year + 1, 1, 1))
        )
        years = sorted({m.year for m, _ in self.months})
        later = [y for y in years if y > year]
        earlier = [y for y in years if y < year]
        return (
            months,
            queryset,
            {
                "year": start,
                "month_counts": [(m, c) for m, c in sorted(self.months) if m.year == year],
                "next_year": datetime.date(later[0], 1, 1) if later else None,
                "previous_year": datetime.date(earlier[-1], 1, 1) if earlier else None,
                "language_fallbacks": self.language_fallbacks(
                    lambda months: any(m.year == year for m in months)
                ),
            },
        )


class MonthArchiveView(NoteArchiveMixin, generic.MonthArchiveView):
    template_name = "blog/note_archive_month.html"

    def get_dated_items(self):
        year, month = self.checked_year(), int(self.kwargs["month"])
        if not 1 <= month <= 12:
            raise Http404("No such month.")
        start = datetime.date(year, month, 1)
        months = sorted(m for m, _ in self.months)
        if start not in months:
            raise Http404("No notes in that month.")
        end = datetime.date(year + month // 12, month % 12 + 1, 1)
        queryset = self.get_queryset().filter(**self.period_bounds(start, end))
        later = [m for m in months if m > start]
        earlier = [m for m in months if m < start]
        return (
            [],
            queryset,
            {
                "month": start,
                "next_month": later[0] if later else None,
                "previous_month": earlier[-1] if earlier else None,
                "language_fallbacks": self.language_fallbacks(lambda months: start in months),
            },
        )
