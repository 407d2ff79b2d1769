"""The series admin: its notes listed in order, at their positions."""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from blog.authoring.admin.desk import MARKDOWN_EDITOR
from blog.authoring.forms import note_state_label
from blog.authoring.render_ahead import RendersAheadAdminMixin
from blog.models import Note, Series


class SeriesNoteInline(admin.TabularInline):
    model = Note
    fk_name = "series"
    fields = ["series_position", "title", "language", "state", "published_at"]
    readonly_fields = ["title", "language", "state", "published_at"]
    ordering = ["series_position", "published_at"]
    extra = 0
    show_change_link = True
    can_delete = False
    verbose_name = _("note in this series")
    verbose_name_plural = _("notes in this series, in order")

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=_("state"))
    def state(self, note):
        """Drafts and scheduled notes hold their positions too: shown, so none surprises."""
        return note_state_label(note).capitalize()


@admin.register(Series)
class SeriesAdmin(RendersAheadAdminMixin, admin.ModelAdmin):
    formfield_overrides = MARKDOWN_EDITOR
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
