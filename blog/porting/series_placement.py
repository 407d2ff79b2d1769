"""Placing an imported note in its series: found by any of its names, created when new.

A pair stands in one series at one position. A note without a position keeps its own or its
translation's, else takes its place by date; a taken position is reported and dated instead.
"""

from django.db.models import F, Max
from django.utils.translation import gettext_lazy as _

from blog.models import Language, Note, Series
from blog.porting.report import shorten
from blog.porting.terms import find_series, new_series
from blog.porting.wording import worded
from blog.text.cjk import has_cjk
from blog.text.slugs import ascii_slug, unique_slug


class SeriesPlacement:
    """The importer's series steps (:class:`.importer.Importer`); they use its ``report``,
    ``authority`` and ``created_series`` (pk → the file and the name it gave)."""

    def place_in_series(self, note, record, partner):
        if not record.series:
            translation = partner or (note.counterpart if note.pk else None)
            if translation is None or translation.series_id is None:
                note.series, note.series_position = None, None
            # else: a translation stands at its original's place (Note.clean), kept as is
            return
        series = self.series_for(note, record, partner)
        if series is None:
            note.series, note.series_position = None, None
            return
        # Positions are per language: a note and its translation share theirs.
        others = series.notes.filter(language=note.language).exclude(pk=note.pk)
        position = record.series_position
        if position is None and note.series_id == series.pk and note.series_position:
            position = note.series_position
        if position is None and partner is not None and partner.series_id == series.pk:
            position = partner.series_position  # where its translation stands
        if position is not None and others.filter(series_position=position).exists():
            taken = worded(
                _("position %(position)d in %(series)s is taken"),
                position=position,
                series=repr(record.series),
            )
            self.report.warn(record.source, taken, record.line_of("series_position"))
            position = None
        if position is None:
            position = self.dated_position(note, record, others)
        note.series, note.series_position = series, position

    def series_names(self, note, record):
        """The series' name in each language: ``categories`` in the note's language (Chinese
        when written in Chinese characters), ``series_zh`` and ``series_en`` explicitly."""
        named = {}
        language = Language.CHINESE if has_cjk(record.series) else note.language
        named[language] = record.series
        if record.series_zh:
            named[Language.CHINESE] = record.series_zh
        if record.series_en:
            named[Language.ENGLISH] = record.series_en
        return named

    def series_for(self, note, record, partner):
        """The series the file names, found by any name or created, its other title completed
        from a translation's file (a Hugo pair names it in each language); None if not allowed."""
        names = self.series_names(note, record)
        found = None
        for name in (record.series, *names.values()):
            found = found or find_series(name)
        together = partner.series if partner is not None and partner.series_id else None
        if together is not None and found is not None and found != together:
            elsewhere = _(
                "series %(name)s: its translation is in %(other)s, and a translation stands in "
                "its original's series: placed there"
            )
            self.report.warn(
                record.source,
                worded(elsewhere, name=repr(shorten(record.series)), other=repr(str(together))),
                record.line_of("categories"),
            )
            found = together
        series = found or together
        if series is None:
            if not self.authority.allows("add", Series):
                not_created = _(
                    "series %(name)s not created: you may not add series (needs "
                    "blog.add_series); the note is imported outside any series"
                )
                self.report.warn(
                    record.source,
                    worded(not_created, name=repr(shorten(record.series))),
                    record.line_of("categories"),
                )
                return None
            series = new_series(
                names.get(Language.CHINESE) or record.series,
                names.get(Language.ENGLISH) or record.series,
            )
            self.created_series[series.pk] = (record.source, record.series)
            self.authority.log(series, True, f"Imported from {record.source}")
            return series
        self.complete_series_names(series, names, record)
        return series

    def warn_of_one_titled_series(self):
        """At the end: report each series this import created with one title for both."""
        one_titled = Series.objects.filter(
            pk__in=self.created_series, title_zh=F("title_en")
        ).values_list("pk", flat=True)
        for pk in sorted(one_titled):
            source, name = self.created_series[pk]
            new = _("new series %(name)s: give it its other title in the admin")
            self.report.warn(source, worded(new, name=repr(name)))

    def complete_series_names(self, series, names, record):
        """Give ``series`` the title in a language it has only as a copy of its other title
        (an import named it once); a title the author gave is never replaced."""
        changed = []
        for language, field in ((Language.CHINESE, "title_zh"), (Language.ENGLISH, "title_en")):
            name = names.get(language)
            if name and getattr(series, field) != name and series.title_zh == series.title_en:
                if not Series.objects.filter(**{field: name}).exclude(pk=series.pk).exists():
                    changed.append((field, name))
        if not changed:
            return
        created = series.pk in self.created_series
        if not created and not self.authority.allows("change", Series):
            return  # the series keeps its names; the note is still placed in it
        for field, name in changed:
            setattr(series, field, name)
        if created and any(field == "title_en" for field, _name in changed):
            # Named in Chinese first: its address follows the English title, as the admin's
            # would (nothing links to a series this import has just made).
            series.slug = unique_slug(
                ascii_slug(series.title_en) or series.slug,
                lambda s: Series.objects.filter(slug=s).exclude(pk=series.pk).exists(),
            )
        series.save()
        if not created:
            self.authority.log(series, False, f"Imported from {record.source}")

    def dated_position(self, note, record, others):
        """The note's place by date among the series' parts in its language, the later parts
        moved one place on (an old post imported late does not become the last part)."""
        last = (others.aggregate(last=Max("series_position"))["last"] or 0) + 1
        if note.published_at is None:
            return last
        later = list(
            others.filter(published_at__gt=note.published_at, series_position__isnull=False)
            .order_by("series_position")
            .values_list("series_position", flat=True)[:1]
        )
        if not later:
            return last
        if not self.authority.allows("change", Note):
            return last  # moving the later parts is a change of them
        position = later[0]
        moved = others.filter(series_position__gte=position).order_by("-series_position")
        for part in moved.select_related("translation"):
            counterpart = part.counterpart
            part.series_position += 1
            part.save(update_fields=["series_position"])
            if counterpart is not None and counterpart.series_id == part.series_id:
                counterpart.series_position = part.series_position
                counterpart.save(update_fields=["series_position"])
        return position
