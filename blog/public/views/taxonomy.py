"""Tags and series: indexes with published-note counts, and their pages of notes."""

from django.db.models import Count, F, Max
from django.utils.translation import get_language
from django.views import generic

from blog.caching import memoised, parts, site_settings
from blog.caching.canonical import canonical_path
from blog.models import Series, Tag
from blog.models.series import part_numbers
from blog.public.views.base import (
    CachePolicyMixin,
    PublishedNoteMixin,
    found_by_slug,
    language_fallbacks,
    listed_notes,
)


class TagListView(CachePolicyMixin, generic.ListView):
    """Every tag with at least one published note, with its count, in one query."""

    template_name = "blog/tag_list.html"
    context_object_name = "tags"

    def get_queryset(self):
        parts.depend_on(parts.TAGS)
        return listed_tags()


def listed_tags():
    """The tags of the notes listed in the current interface, with their counts. Counting
    reads every note's tags: once per content version and language."""
    return memoised(
        f"tag-list:{get_language()}",
        lambda: list(
            Tag.objects.filter(tagged_notes__content_object__in=listed_notes())
            .annotate(note_count=Count("tagged_notes"))
            .order_by("-note_count", "name")
        ),
    )


def fallbacks_when_hidden(listed, index, part):
    """:func:`language_fallbacks`, only when the site hides other-language notes (else every page
    exists in every interface); the page then depends on the index's part too."""
    if site_settings().show_other_languages:
        return {}
    parts.depend_on(part)
    return language_fallbacks(listed, index)


class TagDetailView(PublishedNoteMixin, generic.ListView):
    """The published notes of one tag; a tag with none is a 404 (it only tags drafts)."""

    template_name = "blog/tag_detail.html"
    require_notes = True

    def get_queryset(self):
        self.tag = found_by_slug("tag", Tag.objects.all(), self.kwargs["slug"])
        return super().get_queryset()

    def notes_listed(self):
        return super().notes_listed().filter(tags=self.tag)

    def list_parts(self):
        return (parts.tag(self.tag.pk),)

    def get_context_data(self, **kwargs):
        fallbacks = fallbacks_when_hidden(
            lambda: any(tag.pk == self.tag.pk for tag in listed_tags()),
            "blog:tag-list",
            parts.TAGS,
        )
        return super().get_context_data(tag=self.tag, language_fallbacks=fallbacks, **kwargs)


class SeriesListView(CachePolicyMixin, generic.ListView):
    """Every series with published notes, with their count and latest date, in one query."""

    template_name = "blog/series_list.html"
    context_object_name = "series_list"

    def get_queryset(self):
        parts.depend_on(parts.SERIES_INDEX)
        return listed_series()


def listed_series():
    """The series of the notes listed in the current interface, with their counts and latest
    dates: once per content version and language."""
    return memoised(
        f"series-list:{get_language()}",
        lambda: list(
            Series.objects.filter(notes__in=listed_notes())
            .annotate(note_count=Count("notes"), latest=Max("notes__published_at"))
            .order_by("-latest", "title_en")
        ),
    )


class SeriesDetailView(PublishedNoteMixin, generic.ListView):
    """The published parts of a series in reading order."""

    template_name = "blog/series_detail.html"
    paginate_by = 50
    require_notes = True

    def get_queryset(self):
        self.series = found_by_slug("series", Series.objects.all(), self.kwargs["slug"])
        return super().get_queryset()

    def notes_listed(self):
        return (
            super()
            .notes_listed()
            .filter(series=self.series)
            .order_by(F("series_position").asc(nulls_last=True), "published_at", "pk")
        )

    def list_parts(self):
        return (parts.series(self.series.pk),)

    def count_listed(self, queryset):
        # The count of the positions the page reads anyway: one query, not two.
        return len(self.part_positions())

    def part_positions(self):
        """The positions of the parts listed, kept per content version like the count: the
        page says how many parts there are by the rule of blog.models.series."""
        path = canonical_path(self.request.resolver_match) or self.request.path
        listed = self.notes_listed()
        return memoised(
            f"series-positions:{path}",
            lambda: list(listed.order_by().values_list("series_position", flat=True)),
        )

    def get_context_data(self, **kwargs):
        fallbacks = fallbacks_when_hidden(
            lambda: any(series.pk == self.series.pk for series in listed_series()),
            "blog:series-list",
            parts.SERIES_INDEX,
        )
        context = super().get_context_data(
            series=self.series, language_fallbacks=fallbacks, **kwargs
        )
        page = context["page_obj"]
        context["first_number"] = page.start_index()
        context["numbers"] = part_numbers(self.part_positions())
        return context
