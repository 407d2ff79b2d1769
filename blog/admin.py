"""Where the author writes: notes with the Markdown editor, series, tags, pages, settings."""

from django.conf import settings
from django.contrib import admin, messages
from django.db import models
from django.db.models import Count, F, Q
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from markdownx.models import MarkdownxField
from markdownx.widgets import AdminMarkdownxWidget

from .models import NavigationLink, Note, Page, Series, SiteSettings, Status, Tag
from .preview import make_preview_token

MARKDOWN_EDITOR = {MarkdownxField: {"widget": AdminMarkdownxWidget}}
# A source URL typed without a scheme means https (Django 6's default, adopted now).
HTTPS_URLS = {models.URLField: {"assume_scheme": "https"}}


class MarkdownEditorMedia:
    """Editor and preview side by side, the preview styled like the reader's page."""

    css = {"all": ["css/editor-preview.css"]}


@admin.register(Note)
class NoteAdmin(admin.ModelAdmin):
    formfield_overrides = {**MARKDOWN_EDITOR, **HTTPS_URLS}
    Media = MarkdownEditorMedia
    list_display = [
        "title",
        "language",
        "status",
        "is_published",
        "series",
        "series_position",
        "published_at",
        "updated_at",
    ]
    list_filter = ["status", "language", "series", "tags"]
    search_fields = ["title", "slug", "summary", "body"]
    date_hierarchy = "published_at"
    autocomplete_fields = ["series", "translation"]
    list_select_related = ["series"]
    readonly_fields = ["word_count", "reading_minutes", "excerpt", "share_link", "updated_at"]
    actions = ["publish", "unpublish", "render_again"]
    save_on_top = True
    fieldsets = [
        (None, {"fields": ["title", "slug", "language", "body", "summary", "tags"]}),
        (_("Publishing"), {"fields": ["status", "published_at", "share_link", "updated_at"]}),
        (_("Series and translation"), {"fields": ["series", "series_position", "translation"]}),
        (
            _("Source of a translated or reposted article"),
            {
                "fields": ["source_title", "source_author", "source_url", "source_date"],
                "classes": ["collapse"],
            },
        ),
        (_("Cover"), {"fields": ["cover", "cover_alt"], "classes": ["collapse"]}),
        (_("Derived on save"), {"fields": ["excerpt", "word_count", "reading_minutes"]}),
    ]

    @admin.display(description=_("Share a preview"))
    def share_link(self, note):
        if note.pk is None or note.is_published():
            return "—"
        url = reverse(
            "blog:note-share", kwargs={"slug": note.slug, "token": make_preview_token(note)}
        )
        days = max(1, settings.BIJI_PREVIEW_MAX_AGE // 86400)
        help_text = ngettext(
            "Anyone with this link can read the draft for %(days)d day, until the note changes.",
            "Anyone with this link can read the draft for %(days)d days, until the note changes.",
            days,
        ) % {"days": days}
        return format_html('<a href="{0}">{0}</a><div class="help">{1}</div>', url, help_text)

    @admin.action(description=_("Publish the selected notes now (or at their scheduled time)"))
    def publish(self, request, queryset):
        # save() rather than update(): derived fields, the search index and caches follow.
        notes = list(queryset.exclude(status=Status.PUBLISHED))
        for note in notes:
            note.status = Status.PUBLISHED
            note.published_at = note.published_at or timezone.now()
            note.save()
        self.message_user(
            request,
            ngettext("%d note published.", "%d notes published.", len(notes)) % len(notes),
            messages.SUCCESS,
        )

    @admin.action(description=_("Return the selected notes to draft"))
    def unpublish(self, request, queryset):
        notes = list(queryset.filter(status=Status.PUBLISHED))
        for note in notes:
            note.status = Status.DRAFT
            note.save()
        self.message_user(
            request,
            ngettext("%d note returned to draft.", "%d notes returned to draft.", len(notes))
            % len(notes),
            messages.SUCCESS,
        )


    @admin.action(description=_("Render the selected notes again (no date changes)"))
    def render_again(self, request, queryset):
        # After a renderer upgrade: the HTML follows, updated_at and share links stay.
        notes = list(queryset)
        for note in notes:
            note.render()
        self.message_user(
            request,
            ngettext("%d note rendered again.", "%d notes rendered again.", len(notes))
            % len(notes),
            messages.SUCCESS,
        )


class SeriesNoteInline(admin.TabularInline):
    model = Note
    fk_name = "series"
    fields = ["series_position", "title", "language", "status", "published_at"]
    readonly_fields = ["title", "language", "status", "published_at"]
    ordering = ["series_position", "published_at"]
    extra = 0
    show_change_link = True
    can_delete = False
    verbose_name = _("note in this series")
    verbose_name_plural = _("notes in this series, in order")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Series)
class SeriesAdmin(admin.ModelAdmin):
    formfield_overrides = MARKDOWN_EDITOR
    Media = MarkdownEditorMedia
    list_display = ["title_zh", "title_en", "slug", "note_count"]
    search_fields = ["title_zh", "title_en", "slug"]
    prepopulated_fields = {"slug": ["title_en"]}
    ordering = ["title_en"]
    inlines = [SeriesNoteInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(note_count=Count("notes"))

    @admin.display(description=_("notes"), ordering="note_count")
    def note_count(self, series):
        return series.note_count


class NeedsEnglishNameFilter(admin.SimpleListFilter):
    title = _("names")
    parameter_name = "names"

    def lookups(self, request, model_admin):
        return [("untranslated", _("Needs a name in the other language"))]

    def queryset(self, request, queryset):
        if self.value() == "untranslated":
            return queryset.filter(Q(name=F("name_zh")) | Q(name_zh=""))
        return queryset


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ["name_zh", "name", "slug", "usage"]
    list_display_links = ["name_zh", "name"]
    list_filter = [NeedsEnglishNameFilter]
    search_fields = ["name", "name_zh", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    fields = ["name_zh", "name", "slug"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(usage=Count("tagged_notes"))

    @admin.display(description=_("notes"), ordering="usage")
    def usage(self, tag):
        return tag.usage


@admin.register(Page)
class PageAdmin(admin.ModelAdmin):
    formfield_overrides = MARKDOWN_EDITOR
    Media = MarkdownEditorMedia
    list_display = ["title", "slug", "language", "is_published", "updated_at"]
    list_filter = ["is_published", "language"]
    search_fields = ["title", "body"]
    fields = ["title", "slug", "language", "is_published", "body"]


class NavigationLinkInline(admin.TabularInline):
    model = NavigationLink
    extra = 1
    fields = ["position", "label_zh", "label_en", "url"]


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    """One row: the list page goes straight to it, and it can be neither added twice nor
    deleted."""

    inlines = [NavigationLinkInline]
    fields = ["title", "tagline_zh", "tagline_en", "author", "description", "footer"]

    def has_add_permission(self, request):
        return not SiteSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        site = SiteSettings.objects.first()
        if site is None:
            return redirect("admin:blog_sitesettings_add")
        return redirect("admin:blog_sitesettings_change", site.pk)
