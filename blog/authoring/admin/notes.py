"""The notes admin: the list, the form beside the live preview, and the note's pages; its
actions, editor endpoints and translated pair's notice are mixins of their own.
"""

from django.conf import settings
from django.contrib import admin, messages
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from blog.authoring.admin.desk import HTTPS_URLS, MARKDOWN_EDITOR, AuthorDeskMedia
from blog.authoring.admin.filters import (
    StateFilter,
    TagFilter,
    TermWarningsFilter,
    TranslationSyncFilter,
)
from blog.authoring.admin.imports import import_markdown_view
from blog.authoring.admin.note_actions import NoteActionsMixin
from blog.authoring.admin.note_corrections import corrections_panel, keep_correction
from blog.authoring.admin.note_editor import EditorEndpointsMixin
from blog.authoring.admin.note_search import NoteSearchMixin
from blog.authoring.admin.note_translation import TranslationPairMixin
from blog.authoring.forms import NoteForm, note_state_label
from blog.authoring.history import RevisionAdminMixin
from blog.authoring.media_library import media_library_view
from blog.authoring.note_emails import (
    EmailFilter,
    delivery_line,
    delivery_panel,
    send_now_view,
    test_email_view,
    with_delivery_counts,
)
from blog.authoring.render_ahead import RendersAheadAdminMixin
from blog.authoring.tag_input import new_tags_without_english_name
from blog.authoring.term_check_view import term_check_view
from blog.authoring.translating import start_translation_view, translation_tools
from blog.models import Note, Status
from blog.models.announcement import stored_publication
from blog.models.events import published_by_author
from blog.models.share_links import make_share_token
from blog.models.translation_sync import after_edit, with_behind
from blog.models.translations import render_ahead_as_pair, save_note
from blog.text.site_url import absolute_url

# Form fields that are not the note's: a change message leaves them out.
NOT_NOTE_FIELDS = (*NoteForm.sync_fields, "correction")


def term_warnings_line(note):
    """A translated note's term warnings, if any, under its state in the list (in that cell rather
    than a column of their own, so that the list stays narrow)."""
    if note.other_block_hashes is None or not note.term_warnings:
        return ""
    count = note.term_warnings
    return format_html(
        '<br><span class="term-warnings">{}</span>',
        ngettext("%(count)d term warning", "%(count)d term warnings", count) % {"count": count},
    )


@admin.register(Note)
class NoteAdmin(
    NoteSearchMixin,
    RendersAheadAdminMixin,
    RevisionAdminMixin,
    NoteActionsMixin,
    EditorEndpointsMixin,
    TranslationPairMixin,
    admin.ModelAdmin,
):
    form = NoteForm
    formfield_overrides = {**MARKDOWN_EDITOR, **HTTPS_URLS}
    Media = AuthorDeskMedia
    change_list_template = "admin/blog/note/change_list.html"
    # Short columns, so that the list fits beside the navigation and the filters at 1280 px:
    # the series in the admin's language with the position, times as "2025-03-14 09:30", a
    # translated note's state ("In line", "Behind its original") under its language.
    list_display = [
        "title",
        "language_and_sync",
        "state",
        "series_part",
        "published",
        "updated",
    ]
    list_filter = [
        *(StateFilter, "language", "series", TagFilter, TranslationSyncFilter),
        *(TermWarningsFilter, EmailFilter),
    ]
    date_hierarchy = "published_at"
    # A filtered list says how many notes it holds, not how many the blog has: that second
    # count read every note again (~40 ms at 100,000 notes; Django's advice for large tables).
    show_full_result_count = False
    autocomplete_fields = ["series", "translation"]
    list_select_related = ["series"]
    readonly_fields = ["word_count", "reading_minutes", "excerpt", "share_link", "updated_at"]
    readonly_fields += ["email_deliveries", "corrections_made"]
    actions = ["publish", "publish_now", "unpublish", "render_again"]
    save_on_top = True
    fieldsets = [
        (
            None,
            {
                "fields": [
                    *("title", "slug", "language", "body", "summary", "tags", "marks_terms"),
                    "edit_version",
                ]
            },
        ),
        (_("Publishing"), {"fields": ["status", "published_at", "share_link", "updated_at"]}),
        # A save of a published note that corrects a mistake says so here (CorrectionField).
        (_("Correction"), {"fields": ["correction", "corrections_made"]}),
        (_("Series and translation"), {"fields": ["series", "series_position", "translation"]}),
        (_("Email to subscribers"), {"fields": ["emails_subscribers", "email_deliveries"]}),
        (_("Credits"), {"fields": ["translator", "coauthors"], "classes": ["collapse"]}),
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

    @admin.display(description=_("state"), ordering="published_at")
    def state(self, note):
        # Under it, the note's emails to subscribers (the queryset's counts).
        return format_html("{}{}", note_state_label(note).capitalize(), delivery_line(note))

    @admin.display(description=_("emails"))
    def email_deliveries(self, note):
        return delivery_panel(note)

    @admin.display(description=_("corrections"))
    def corrections_made(self, note):
        return corrections_panel(note, can_delete=getattr(note, "may_delete_corrections", False))

    @admin.display(description=_("series"), ordering="series")
    def series_part(self, note):
        if note.series is None:
            return "-"
        if note.series_position is None:
            return note.series.display_name
        return gettext("%(series)s, part %(position)s") % {
            "series": note.series.display_name,
            "position": note.series_position,
        }

    @admin.display(description=_("language"), ordering="language")
    def language_and_sync(self, note):
        """The note's language, its state in a translated pair and its term warnings, from the
        queryset's annotations: no query per row."""
        language = note.get_language_display()
        state = self.sync_state(note)
        if state is None:
            return language
        if note.is_behind:
            cell = format_html('{}<br><strong class="sync-state">{}</strong>', language, state)
        else:
            cell = format_html('{}<br><span class="sync-state quiet">{}</span>', language, state)
        return format_html("{}{}", cell, term_warnings_line(note))

    def sync_state(self, note):
        """The note's state in its pair ("In line", "Behind its original"…), None without a
        translation."""
        if note.other_block_hashes is None:
            return None
        if not note.is_behind:
            return gettext("In line")
        if note.translation_id:
            return gettext("Behind its original")
        return gettext("Behind its translation")

    @admin.display(description=_("published at"), ordering="published_at")
    def published(self, note):
        return _short_time(note.published_at)

    @admin.display(description=_("updated"), ordering="updated_at")
    def updated(self, note):
        return _short_time(note.updated_at)

    @admin.display(description=_("Share a preview"))
    def share_link(self, note):
        if note.pk is None or note.is_published():
            return "—"
        url = absolute_url(
            reverse("blog:note-share", kwargs={"slug": note.slug, "token": make_share_token(note)})
        )
        days = max(1, settings.BIJI_PREVIEW_MAX_AGE // 86400)
        help_text = ngettext(
            "Anyone with this link can read the draft for %(days)d day, until the note changes.",
            "Anyone with this link can read the draft for %(days)d days, until the note changes.",
            days,
        ) % {"days": days}
        return format_html(
            '<a class="share-url" href="{0}">{0}</a> '
            '<button type="button" class="button copy-link" data-copy="{0}" '
            'data-copied="{1}">{2}</button><div class="help">{3}</div>',
            url,
            gettext("Copied"),
            gettext("Copy the link"),
            help_text,
        )

    def get_queryset(self, request):
        # Whether each note is behind its translation, and its email deliveries, in the
        # list's own query.
        return with_delivery_counts(with_behind(super().get_queryset(request)))

    def get_fieldsets(self, request, obj=None):
        """The translation boxes under the body, on a note that has a translation; no correction
        on a new note."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or obj.pk is None:
            return [(name, opts) for name, opts in fieldsets if "correction" not in opts["fields"]]
        if obj.counterpart is None:
            return fieldsets
        (name, options), *others = fieldsets
        fields = list(options["fields"])
        fields.insert(fields.index("body") + 1, NoteForm.sync_fields)
        return [(name, {**options, "fields": fields}), *others]

    def render_related_ahead(self, instance):
        partner = instance.translation if instance.translation_id else None
        if partner is not None:
            render_ahead_as_pair(partner)

    def save_model(self, request, obj, form, change):
        # The blocks the note had before this save: what the other note was in line with.
        previous_hashes = obj.block_hashes
        # Its publication before this save: a first publication emails subscribers.
        was = stored_publication(obj)
        # The note's row, then the rules of its translated pair (the link it carries becomes
        # the only one; its translation follows it in the series).
        save_note(obj)
        released = getattr(form, "released_translation", None)
        if released is not None:
            # The translation field emptied on the note that does not hold the link: the
            # other note's link goes (a save of that field: caches and lists follow).
            released.translation = None
            released.save(update_fields=["translation"])
        if change:
            # The other note falls behind by itself when this text changed, unless the author
            # says this edit needs no translation or brings this note in line.
            after_edit(obj, previous_hashes, **form.sync_choices())
        if obj.status == Status.PUBLISHED:  # a first publication emails subscribers
            published_by_author.send(sender=Note, note=obj, before=was)
        if form.cleaned_data.get("correction"):
            keep_correction(obj, form.cleaned_data["correction"])

    def construct_change_message(self, request, form, formsets, add=False):
        """The boxes and the correction are not fields of the note: a save that only corrects it
        or brings it in line says so."""
        message = super().construct_change_message(request, form, formsets, add)
        for part in message:
            fields = part.get("changed", {}).get("fields")
            if fields is not None:
                part["changed"]["fields"] = [f for f in fields if f not in NOT_NOTE_FIELDS]
        message = [part for part in message if part.get("changed", {}).get("fields") != []]
        if not message and form.cleaned_data.get("correction"):
            return gettext("Corrected: %(correction)s") % {
                "correction": form.cleaned_data["correction"]
            }
        if not message and form.sync_choices()["in_line"]:
            return self._brought_in_line_comment(form.instance)
        return message

    def save_related(self, request, form, formsets, change):
        before = list(form.initial.get("tags") or [])
        super().save_related(request, form, formsets, change)
        message = new_tags_without_english_name(before, form.instance.tags.all())
        if message:
            self.message_user(request, message, messages.WARNING)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk is not None:
            # The corrections' panel links their deletion for whoever may (CorrectionAdmin).
            obj.may_delete_corrections = request.user.has_perm("blog.change_note")
            context["translation_tools"] = translation_tools(self, request, obj)
            context["translation_behind"] = self._behind_notice(request, obj)
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- the note's pages ------------------------------------------------------------------

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("editor/frame/", view(self.editor_frame), name="blog_note_editor_frame"),
            path("editor/preview/", view(self.editor_preview), name="blog_note_editor_preview"),
            path("editor/slug/", view(self.slug_proposal), name="blog_note_slug"),
            path("editor/position/", view(self.position_proposal), name="blog_note_position"),
            path(
                "<path:object_id>/translate/",
                view(self.start_translation),
                name="blog_note_translate",
            ),
            path(
                "<path:object_id>/bring-in-line/",
                view(self.bring_in_line_view),
                name="blog_note_bring_in_line",
            ),
            path(
                "<path:object_id>/term-check/",
                view(self.term_check),
                name="blog_note_term_check",
            ),
            path(
                "<path:object_id>/email/test/",
                view(self.test_email),
                name="blog_note_test_email",
            ),
            path(
                "<path:object_id>/email/send/",
                view(self.send_email),
                name="blog_note_send_email",
            ),
            path("media/", view(self.media_library), name="blog_note_media"),
            path("import/", view(import_markdown_view), name="blog_note_import"),
            *super().get_urls(),
        ]

    def start_translation(self, request, object_id):
        return start_translation_view(self, request, object_id)

    def term_check(self, request, object_id):
        return term_check_view(self, request, object_id)

    def media_library(self, request):
        return media_library_view(self, request)

    def test_email(self, request, object_id):
        return test_email_view(self, request, object_id)

    def send_email(self, request, object_id):
        return send_now_view(self, request, object_id)


def _short_time(value):
    """A time as the note list shows it: "2025-03-14 09:30", local, in either language."""
    if value is None:
        return "-"
    return formats.date_format(timezone.localtime(value), "Y-m-d H:i")
