"""Where the author writes: notes with the Markdown editor, series, tags, pages, the
glossary's terms (definitions in the same editor, revisions as notes have), settings.

The author's desk: revisions and edit conflicts (:mod:`.history`, :mod:`.conflicts`), the
editor widget and friendly validation (:mod:`.forms`, with :mod:`.tag_input` and
:mod:`.series_positions`), the media library (:mod:`.media_library`), starting a translation
(:mod:`.translating`), a translated pair kept in line (each note's state in the list and a
filter; above the editor, what changed in the other note, :mod:`.translation_diff`). The
admin is branded with the site's title.
"""

import django_tasks_db.admin  # noqa: F401  (registers DBTaskResult now: unregistered below)
from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import Count
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.cache import add_never_cache_headers
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django_tasks_db.models import DBTaskResult
from markdownx.models import MarkdownxField
from taggit.models import Tag as TaggitTag

from blog.authoring.forms import MarkdownEditorWidget, NoteForm, PageForm, note_state_label
from blog.authoring.glossary_form import TermForm
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
from blog.authoring.series_positions import position_proposal_view
from blog.authoring.tag_input import new_tags_without_english_name
from blog.authoring.term_check_view import term_check_view
from blog.authoring.translating import start_translation_view, translation_tools
from blog.authoring.translation_diff import changes_since_sync, text_token
from blog.caching import site_settings
from blog.mail.announce import publication_of, stored_publication
from blog.models import (
    Language,
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Status,
    Tag,
    Term,
)
from blog.models.events import published_by_author
from blog.models.images import with_pictures
from blog.models.import_runs import ImportRun
from blog.models.revisions import recording
from blog.models.share_links import make_share_token
from blog.models.term_matching import mark_terms
from blog.models.translation_sync import (
    after_edit,
    bring_in_line,
    is_behind,
    is_original_of,
    with_behind,
)
from blog.models.translations import render_ahead_as_pair, save_note
from blog.porting.admin_views import ImportRunAdmin, import_markdown_view
from blog.rendering import RenderRefused, render_preview
from blog.text.bilingual import contents_title, html_lang
from blog.text.cjk import has_cjk
from blog.text.site_url import absolute_url
from blog.text.slugs import proposed_slug, unique_slug
from blog.text.validators import WEB_ADDRESS_MESSAGE


def _site_title():
    site = site_settings()
    return getattr(site, "title", "") or "biji"


# "笔记 biji 管理" / "笔记 biji administration": the site's own title, in the admin's language.
admin.site.site_header = lazy(
    lambda: gettext("%(site)s administration") % {"site": _site_title()}, str
)()
admin.site.site_title = lazy(_site_title, str)()
admin.site.index_title = _("Write and manage the blog")
admin.site.site_url = "/"

# The admin's imports, run in the background: their list and progress pages (read-only).
admin.site.register(ImportRun, ImportRunAdmin)

# django-tasks-db's list of task results (every task's arguments and traceback) is the
# operator's: `manage.py tasks` shows it. (Its admin module is imported above, so that this
# holds: the app comes after blog in INSTALLED_APPS, and autodiscovery would register it later.)
admin.site.unregister(DBTaskResult)

# taggit registers an admin for its own Tag model, which biji does not use.
if admin.site.is_registered(TaggitTag):
    admin.site.unregister(TaggitTag)

MARKDOWN_EDITOR = {MarkdownxField: {"widget": MarkdownEditorWidget}}
# A source URL typed without a scheme means https (Django 6's default, adopted now).
HTTPS_URLS = {
    models.URLField: {"assume_scheme": "https", "error_messages": {"invalid": WEB_ADDRESS_MESSAGE}}
}
# The preview frame is embedded by the admin's own pages, nowhere else.
FRAME_POLICY = settings.BIJI_CONTENT_SECURITY_POLICY.replace(
    "frame-ancestors 'none'", "frame-ancestors 'self'"
)


class AuthorDeskMedia:
    """On every page of the notes and pages admin (the list too): editor.js clears the
    browser's autosaved text once the page after a save reports success."""

    css = {"all": ["css/admin-desk.css"]}
    js = ["js/editor.js"]


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
    """Notes behind their translated pair, in line with it, or without one (the queryset
    carries ``is_behind``: :meth:`NoteAdmin.get_queryset`)."""

    title = _("translation")
    parameter_name = "sync"

    def lookups(self, request, model_admin):
        return [
            ("behind", _("Behind")),
            ("in-line", _("In line")),
            ("none", _("No translation")),
        ]

    def queryset(self, request, queryset):
        if self.value() == "behind":
            return queryset.filter(is_behind=True)
        if self.value() == "in-line":
            return queryset.filter(is_behind=False, other_block_hashes__isnull=False)
        if self.value() == "none":
            return queryset.filter(other_block_hashes__isnull=True)
        return queryset


class TermWarningsFilter(admin.SimpleListFilter):
    """Translated notes with term warnings or without (the stored count,
    :mod:`.term_warnings`; a note without a translation is neither)."""

    title = _("term warnings")
    parameter_name = "terms"

    def lookups(self, request, model_admin):
        return [("with", _("With warnings")), ("without", _("Without warnings"))]

    def queryset(self, request, queryset):
        if self.value() == "with":
            return queryset.filter(other_block_hashes__isnull=False, term_warnings__gt=0)
        if self.value() == "without":
            return queryset.filter(other_block_hashes__isnull=False, term_warnings=0)
        return queryset


def term_warnings_line(note):
    """Under a translated note's state in the list: its term warnings, if it has any (the
    stored count; a column of its own ran the English list past a 1280 px screen's edge)."""
    if note.other_block_hashes is None or not note.term_warnings:
        return ""
    count = note.term_warnings
    return format_html(
        '<br><span class="term-warnings">{}</span>',
        ngettext("%(count)d term warning", "%(count)d term warnings", count) % {"count": count},
    )


@admin.register(Note)
class NoteAdmin(RendersAheadAdminMixin, RevisionAdminMixin, admin.ModelAdmin):
    form = NoteForm
    formfield_overrides = {**MARKDOWN_EDITOR, **HTTPS_URLS}
    Media = AuthorDeskMedia
    change_list_template = "admin/blog/note/change_list.html"
    # Short columns, so that the list fits beside the navigation and the filters at 1280 px:
    # the series in the admin's language with the position, times as "2025-03-14 09:30", a
    # translated note's state ("In line", "Behind its original") under its language (a
    # column of its own ran the English list past the screen's edge).
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
    search_fields = ["title", "slug", "summary", "body"]
    date_hierarchy = "published_at"
    autocomplete_fields = ["series", "translation"]
    list_select_related = ["series"]
    readonly_fields = ["word_count", "reading_minutes", "excerpt", "share_link", "updated_at"]
    readonly_fields += ["email_deliveries"]
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
        (_("Series and translation"), {"fields": ["series", "series_position", "translation"]}),
        (_("Email to subscribers"), {"fields": ["emails_subscribers", "email_deliveries"]}),
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
        """The note's language and, in a translated pair, whether it is in line with the
        other note, and its term warnings: from the queryset's annotations and the note's
        row, no query per row."""
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
        """The note's state in its pair ("In line", "Behind its original", "Behind its
        translation"); None without a translation. The note holding the link is the
        translation (:func:`blog.models.translation_sync.is_original_of`)."""
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
        """The translation boxes (:class:`.forms.TranslationSyncFields`) under the body, on a
        note that has a translation."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or obj.pk is None or obj.counterpart is None:
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

    def construct_change_message(self, request, form, formsets, add=False):
        """The boxes are not fields of the note: a save that only brings it in line says so."""
        message = super().construct_change_message(request, form, formsets, add)
        for part in message:
            fields = part.get("changed", {}).get("fields")
            if fields is not None:
                part["changed"]["fields"] = [f for f in fields if f not in NoteForm.sync_fields]
        message = [part for part in message if part.get("changed", {}).get("fields") != []]
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
            context["translation_tools"] = translation_tools(self, request, obj)
            context["translation_behind"] = self._behind_notice(request, obj)
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- a note behind its translated pair ---------------------------------------------------

    def _behind_notice(self, request, note):
        """What the notice above the editor shows, when ``note`` is behind the other note."""
        other = note.counterpart
        diff = changes_since_sync(note, other)
        if diff is None:
            return None
        return {
            "diff": diff,
            "other": other,
            "other_is_original": is_original_of(other, note),
            "other_url": reverse("admin:blog_note_change", args=[other.pk]),
            "version_url": (
                reverse("admin:blog_note_revision", args=[other.pk, diff.version.pk])
                if diff.found
                else ""
            ),
            "bring_in_line_url": reverse("admin:blog_note_bring_in_line", args=[note.pk]),
            "text_token": text_token(other),
            "can_bring_in_line": self.has_change_permission(request, note),
        }

    def _brought_in_line_comment(self, note):
        other = note.counterpart
        if other is not None and is_original_of(other, note):
            return gettext("Brought in line with its original")
        return gettext("Brought in line with its translation")

    def bring_in_line_view(self, request, object_id):
        """POST: the note now says what the other note says (a revision). Refused when the
        other note's text changed again since the page showed it."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        note = self.get_object(request, unquote(object_id))
        if note is None:
            raise Http404
        if not self.has_change_permission(request, note):
            raise PermissionDenied
        change_url = reverse("admin:blog_note_change", args=[note.pk])
        other = note.counterpart
        if other is None or not is_behind(note, other):
            self.message_user(request, gettext("This note is in line already."), messages.INFO)
            return redirect(change_url)
        if request.POST.get("text_token") != text_token(other):
            self.message_user(
                request,
                gettext(
                    "The other note's text changed again since this page showed it: nothing "
                    "was recorded. Look at what changed, then bring it in line."
                ),
                messages.ERROR,
            )
            return redirect(change_url)
        comment = self._brought_in_line_comment(note)
        with transaction.atomic(), recording(request.user, comment):
            bring_in_line(note, other)
        self.message_user(
            request,
            gettext("“%(title)s” is in line with “%(other)s” again.")
            % {"title": note.title, "other": other.title},
            messages.SUCCESS,
        )
        return redirect(change_url)

    def _save_each(self, request, notes, comment, change):
        """Save each note (derived fields, search and caches follow) as one revision."""
        with recording(request.user, comment):
            for note in notes:
                change(note)
                note.save()

    @admin.action(description=_("Publish the selected notes (at their scheduled time if set)"))
    def publish(self, request, queryset):
        notes = list(queryset.exclude(status=Status.PUBLISHED))

        def change(note):
            note.status = Status.PUBLISHED
            note.published_at = note.published_at or timezone.now()

        self._save_each(request, notes, gettext("Published (bulk action)"), change)
        self.message_user(
            request,
            ngettext("%d note published.", "%d notes published.", len(notes)) % len(notes),
            messages.SUCCESS,
        )

    @admin.action(description=_("Publish the selected notes now"))
    def publish_now(self, request, queryset):
        now = timezone.now()
        notes = [note for note in queryset if not note.is_published()]
        was = {note.pk: publication_of(note) for note in notes}

        def change(note):
            note.status = Status.PUBLISHED
            note.published_at = now

        self._save_each(request, notes, gettext("Published now (bulk action)"), change)
        for note in notes:  # a first publication emails subscribers ("Publish" never does)
            published_by_author.send(sender=Note, note=note, before=was[note.pk])
        self.message_user(
            request,
            ngettext("%d note published now.", "%d notes published now.", len(notes)) % len(notes),
            messages.SUCCESS,
        )

    @admin.action(description=_("Return the selected notes to draft"))
    def unpublish(self, request, queryset):
        notes = list(queryset.filter(status=Status.PUBLISHED))

        def change(note):
            note.status = Status.DRAFT

        self._save_each(request, notes, gettext("Returned to draft (bulk action)"), change)
        self.message_user(
            request,
            ngettext("%d note returned to draft.", "%d notes returned to draft.", len(notes))
            % len(notes),
            messages.SUCCESS,
        )

    @admin.action(description=_("Render the selected notes again (no date changes)"))
    def render_again(self, request, queryset):
        # After a renderer upgrade: the HTML follows, updated_at and share links stay; the
        # author's text is unchanged, so no revision either.
        notes = list(queryset)
        for note in notes:
            note.render()
        self.message_user(
            request,
            ngettext("%d note rendered again.", "%d notes rendered again.", len(notes))
            % len(notes),
            messages.SUCCESS,
        )

    # --- the editor's endpoints ----------------------------------------------------------

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

    def _may_write(self, request):
        return any(
            request.user.has_perm(perm)
            for perm in ("blog.change_note", "blog.add_note", "blog.change_page")
        )

    @xframe_options_sameorigin
    def editor_frame(self, request):
        """The preview's page: the public stylesheet and scripts around an empty article."""
        if not self._may_write(request):
            return HttpResponse(status=403)
        from django.template.response import TemplateResponse

        language = request.GET.get("language") or Language.CHINESE
        response = TemplateResponse(
            request, "admin/blog/editor_frame.html", {"content_lang": html_lang(language)}
        )
        response["Content-Security-Policy"] = FRAME_POLICY
        add_never_cache_headers(response)
        return response

    def editor_preview(self, request):
        """The body as readers get it: the renderer that stores notes, the note's [TOC]
        title language included, and a note's glossary terms marked when its form says so."""
        if request.method != "POST" or not self._may_write(request):
            return HttpResponse(status=405 if request.method != "POST" else 403)
        language = request.POST.get("language") or Language.CHINESE
        if language not in Language.values:
            language = Language.CHINESE
        try:
            html = render_preview(request.POST.get("content", ""), contents_title(language))
        except RenderRefused as refusal:  # the editor shows why; the last preview stays
            response = JsonResponse({"error": str(refusal)}, status=422)
            add_never_cache_headers(response)
            return response
        if request.POST.get("marks_terms") == "1":
            html = mark_terms(html, language)[0].html
        html = with_pictures(html).html  # stored images as the page will show them
        response = HttpResponse(html)
        add_never_cache_headers(response)
        return response

    def slug_proposal(self, request):
        """The slug a new note with this title would get: short, ASCII, free."""
        if not self._may_write(request):
            return JsonResponse({}, status=403)
        slug = unique_slug(
            proposed_slug(request.GET.get("title", "")[:200]),
            lambda s: Note.objects.filter(slug=s).exists(),
        )
        response = JsonResponse({"slug": slug})
        add_never_cache_headers(response)
        return response

    def position_proposal(self, request):
        if not self._may_write(request):
            return JsonResponse({}, status=403)
        return position_proposal_view(request)

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


class NeedsOtherNameFilter(admin.SimpleListFilter):
    """Tags to finish: typed in Chinese with no English name yet. Latin-script names (CUDA,
    GPU, Python) read the same in both languages and are not listed."""

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


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ["name_zh", "name", "slug", "usage"]
    list_display_links = ["name_zh", "name"]
    list_filter = [NeedsOtherNameFilter]
    search_fields = ["name", "name_zh", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    fields = ["name_zh", "name", "slug"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(usage=Count("tagged_notes"))

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        # Left empty, the slug comes from the English name, else the Chinese one's pinyin.
        form.base_fields["slug"].required = False
        form.base_fields["slug"].help_text = _(
            "ASCII, used in URLs. Left empty, it is made from the English name, or from the "
            "Chinese name's pinyin."
        )
        return form

    @admin.display(description=_("notes"), ordering="usage")
    def usage(self, tag):
        return tag.usage


@admin.register(Page)
class PageAdmin(RendersAheadAdminMixin, RevisionAdminMixin, admin.ModelAdmin):
    form = PageForm
    formfield_overrides = MARKDOWN_EDITOR
    Media = AuthorDeskMedia
    list_display = ["title", "slug", "language", "is_published", "updated_at"]
    list_filter = ["is_published", "language"]
    search_fields = ["title", "body"]
    fields = ["title", "slug", "language", "is_published", "body", "edit_version"]


class DefinitionEditorWidget(MarkdownEditorWidget):
    """The Markdown editor for a definition written in one ``language``: the preview renders
    it as that language's text (the term's form has no language field to name)."""

    def __init__(self, language, attrs=None):
        self.language = language
        super().__init__(attrs, language_field=f"_preview_language_{language}")

    def render(self, name, value, attrs=None, renderer=None):
        # A hidden input holding the language, which the editor reads as the note form's
        # language field; the form has no field by that name, so a save ignores it.
        return format_html(
            '{}<input type="hidden" name="{}" value="{}">',
            super().render(name, value, attrs, renderer),
            self.language_field,
            self.language,
        )


@admin.register(Term)
class TermAdmin(RendersAheadAdminMixin, RevisionAdminMixin, admin.ModelAdmin):
    """The glossary: each term's forms in both languages, its definitions in the notes'
    editor with a preview, the notes that explain it; revisions as for notes. A form another
    term has already is refused (:mod:`.glossary_form`)."""

    form = TermForm
    Media = AuthorDeskMedia
    list_display = ["chinese", "english", "keep_in_english", "note_count"]
    list_display_links = ["chinese", "english"]
    list_filter = ["keep_in_english"]
    search_fields = [
        *("chinese", "english", "chinese_variants", "english_variants", "slug"),
        *("definition_zh", "definition_en"),
    ]
    ordering = ["slug"]
    autocomplete_fields = ["explained_in"]
    fieldsets = [
        (None, {"fields": ["chinese", "english", "slug", "keep_in_english"]}),
        (_("Other accepted forms"), {"fields": ["chinese_variants", "english_variants"]}),
        (_("Definitions"), {"fields": ["definition_zh", "definition_en"]}),
        (None, {"fields": ["explained_in"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(note_count=Count("uses", distinct=True))

    @admin.display(description=_("notes using it"), ordering="note_count")
    def note_count(self, term):
        return term.note_count

    def view_on_site(self, term):
        return reverse("blog:glossary-term", kwargs={"slug": term.slug})

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name in {"definition_zh", "definition_en"}:
            language = Language.CHINESE if db_field.name == "definition_zh" else Language.ENGLISH
            kwargs["widget"] = DefinitionEditorWidget(language)
        elif db_field.name in {"chinese_variants", "english_variants"}:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 40})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class NavigationLinkInline(admin.TabularInline):
    model = NavigationLink
    extra = 1
    fields = ["position", "label_zh", "label_en", "url"]


@admin.register(SiteSettings)
class SiteSettingsAdmin(RendersAheadAdminMixin, admin.ModelAdmin):
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
