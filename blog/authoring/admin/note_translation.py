"""A note behind its translated pair, in the notes admin: the notice above the editor, with
what changed in the other note, and bringing the note in line."""

from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext

from blog.authoring.translation_diff import changes_since_sync, text_token
from blog.models.revisions import recording
from blog.models.translation_sync import bring_in_line, is_behind, is_original_of


class TranslationPairMixin:
    """For :class:`.notes.NoteAdmin`, which shows the notice and mounts the view."""

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
