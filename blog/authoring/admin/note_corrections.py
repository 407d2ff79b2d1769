"""A note's corrections in the admin: a save with the form's correction (CorrectionField) makes one,
kept with that save's revision; the note's page lists them, read-only, each with its date, its
revision and a link to delete a mistaken one on Django's confirmation page. The Correction admin
is that page alone: it is not in the index, and nothing is added or edited there."""

import reversion
from django.contrib import admin
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext

from blog.models import Correction


def keep_correction(note, text):
    """``text`` as a correction of ``note``, dated as the save that made it. Inside the admin's
    save, django-reversion writes it with the save's revision as it records that, in the same
    transaction (a meta row of the revision)."""
    values = {"note": note, "text": text, "made_at": note.updated_at}
    if reversion.is_active():
        reversion.add_meta(Correction, **values)
    else:
        Correction.objects.create(**values)


def corrections_panel(note, can_delete):
    """The note's corrections, newest first: date, text, the revision it was saved with (compared
    with the note now; none for an imported one) and, for an author who may, a link to delete
    it."""
    corrections = list(note.corrections.select_related("revision")) if note.pk else []
    if not corrections:
        return gettext("None: an ordinary save makes none.")
    rows = []
    for correction in corrections:
        date = formats.date_format(timezone.localtime(correction.made_at), "DATETIME_FORMAT")
        rows.append(
            (
                date,
                correction.text,
                _revision_link(correction),
                _delete_link(correction) if can_delete else "",
            )
        )
    return format_html(
        '<table class="corrections"><tbody>{}</tbody></table>',
        format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
    )


def _revision_link(correction):
    if correction.revision is None:
        return gettext("imported")
    version = correction.revision.version_set.filter(
        object_id=str(correction.note_id),
        content_type__app_label="blog",
        content_type__model="note",
    ).first()
    if version is None:
        return ""
    url = reverse("admin:blog_note_revision", args=[correction.note_id, version.pk])
    return format_html('<a href="{}">{}</a>', url, gettext("Compare with now"))


def _delete_link(correction):
    url = reverse("admin:blog_correction_delete", args=[correction.pk])
    return format_html('<a class="deletelink" href="{}">{}</a>', url, gettext("Delete"))


@admin.register(Correction)
class CorrectionAdmin(admin.ModelAdmin):
    """Deleting a mistaken correction, from its note's page; back there afterwards."""

    def has_module_permission(self, request):
        return False

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("blog.view_note") or request.user.has_perm("blog.change_note")

    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("blog.change_note")

    def delete_model(self, request, obj):
        request.corrected_note_id = obj.note_id
        super().delete_model(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        response = super().response_delete(request, obj_display, obj_id)
        note_id = getattr(request, "corrected_note_id", None)
        if note_id is None:
            return response
        return HttpResponseRedirect(reverse("admin:blog_note_change", args=[note_id]))
