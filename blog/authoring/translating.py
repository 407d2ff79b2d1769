"""The note form's translation tools: "Start a translation", which creates the linked draft in
the other language as one revision and opens it, or, once the pair exists, a link to it.
"""

from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

from blog.models import Language
from blog.models.revisions import recording
from blog.models.translation_drafts import (
    OTHER_LANGUAGE,
    TranslationExists,
    render_translation_ahead,
    start_translation,
)


def _change_url(note):
    return reverse("admin:blog_note_change", args=[note.pk])


def may_start_translation(model_admin, request, note):
    return model_admin.has_add_permission(request) and model_admin.has_view_or_change_permission(
        request, note
    )


def translation_tools(model_admin, request, note):
    """What the change form's tools show for ``note``: its translation, or the button to start one;
    None for neither."""
    translation = note.counterpart
    if translation is not None:
        return {
            "translation": translation,
            "url": _change_url(translation),
            "language": Language(translation.language).label,
        }
    if not may_start_translation(model_admin, request, note):
        return None
    return {
        "translation": None,
        "url": reverse("admin:blog_note_translate", args=[note.pk]),
        "language": Language(OTHER_LANGUAGE[note.language]).label,
    }


def start_translation_view(model_admin, request, object_id):
    """POST: create the translation's draft and open it; refuse if one exists."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    note = model_admin.get_object(request, unquote(object_id))
    if note is None:
        raise Http404
    if not may_start_translation(model_admin, request, note):
        raise PermissionDenied
    comment = _("Started as a translation of “%(title)s”.") % {"title": note.title}
    render_translation_ahead(note)  # before the transaction: it holds only the writes
    try:
        # Manual: the draft joins the revision with its tags, set after its save.
        with recording(request.user, comment, manual=True):
            draft = start_translation(note)
            model_admin.log_addition(request, draft, comment)
    except TranslationExists as exists:
        model_admin.message_user(
            request,
            format_html(
                _("“{title}” has a translation already: “<a href='{url}'>{translation}</a>”."),
                title=note.title,
                url=_change_url(exists.translation),
                translation=exists.translation.title,
            ),
            messages.ERROR,
        )
        return HttpResponseRedirect(_change_url(note))
    model_admin.message_user(
        request,
        _(
            "This draft translates “%(title)s” into %(language)s: translate the title, "
            "summary and body, then publish it. The slug can change until then."
        )
        % {"title": note.title, "language": Language(draft.language).label},
        messages.SUCCESS,
    )
    if note.series_id and draft.series_id is None:
        model_admin.message_user(
            request,
            _(
                "Position %(position)s of the series is held by another note in %(language)s: "
                "choose the translation's series and position."
            )
            % {"position": note.series_position, "language": Language(draft.language).label},
            messages.WARNING,
        )
    return HttpResponseRedirect(_change_url(draft))
