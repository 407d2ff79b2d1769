"""The notes list's actions: publish, publish now, return to draft, render again."""

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from blog.models import Note, Status
from blog.models.announcement import publication_of
from blog.models.events import published_by_author
from blog.models.revisions import recording


class NoteActionsMixin:
    """For :class:`.notes.NoteAdmin`: its ``actions``, each saving the notes as one revision."""

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
