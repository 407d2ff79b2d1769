"""The list filters of the notes and tags admins."""

from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from blog.models import Status, Tag
from blog.models.translation_sync import in_a_pair
from blog.text.cjk import has_cjk


class StateFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("draft", _("Draft")),
            ("scheduled", _("Scheduled")),
            ("published", _("Published")),
        ]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "draft":
            return queryset.filter(status=Status.DRAFT)
        if self.value() == "scheduled":
            return queryset.filter(status=Status.PUBLISHED, published_at__gt=now)
        if self.value() == "published":
            return queryset.filter(status=Status.PUBLISHED, published_at__lte=now)
        return queryset


class TagFilter(admin.SimpleListFilter):
    """Tags by their name in the admin's language (the other one beside it)."""

    title = _("tag")
    parameter_name = "tag"

    def lookups(self, request, model_admin):
        tags = sorted(Tag.objects.all(), key=lambda tag: tag.display_name.lower())
        return [(str(tag.pk), tag.both_names) for tag in tags]

    def queryset(self, request, queryset):
        if self.value() and self.value().isdigit():
            return queryset.filter(tags__pk=self.value())
        return queryset


class TranslationSyncFilter(admin.SimpleListFilter):
    """Notes behind their translated pair, in line with it, or without one."""

    title = _("translation")
    parameter_name = "sync"

    def lookups(self, request, model_admin):
        return [
            ("behind", _("Behind")),
            ("in-line", _("In line")),
            ("none", _("No translation")),
        ]

    def queryset(self, request, queryset):
        # Pairs first, from the link's index: whether a note is behind is computed per row.
        if self.value() == "behind":
            return queryset.filter(in_a_pair(), is_behind=True)
        if self.value() == "in-line":
            return queryset.filter(in_a_pair(), is_behind=False)
        if self.value() == "none":
            return queryset.exclude(in_a_pair())
        return queryset


class TermWarningsFilter(admin.SimpleListFilter):
    """Translated notes with term warnings or without (a note without a translation is neither)."""

    title = _("term warnings")
    parameter_name = "terms"

    def lookups(self, request, model_admin):
        return [("with", _("With warnings")), ("without", _("Without warnings"))]

    def queryset(self, request, queryset):
        if self.value() == "with":
            return queryset.filter(in_a_pair(), term_warnings__gt=0)
        if self.value() == "without":
            return queryset.filter(in_a_pair(), term_warnings=0)
        return queryset


class NeedsOtherNameFilter(admin.SimpleListFilter):
    """Tags typed in Chinese with no English name yet (Latin-script names such as CUDA read the same
    in both languages)."""

    title = _("names")
    parameter_name = "names"

    def lookups(self, request, model_admin):
        return [("untranslated", _("Needs a name in the other language"))]

    def queryset(self, request, queryset):
        if self.value() != "untranslated":
            return queryset
        pks = [
            pk
            for pk, name, name_zh in Tag.objects.values_list("pk", "name", "name_zh")
            if not name or has_cjk(name) or (not name_zh and has_cjk(name))
        ]
        return queryset.filter(pk__in=pks)
