"""Edit conflicts: a change form remembers the version it was opened at.

The version is the object's ``updated_at``, which every author's save moves (the admin form,
the bulk actions, a revision restore) and a re-render does not (``render()`` stores derived
fields only). A form whose version is older than the stored one is refused:

* the message says who changed the object and when, and links to its history;
* the author's text stays in the form, with a diff of the stored text against it;
* the form now carries the stored version, so saving it again (after merging by hand) is a
  deliberate choice to replace the newer text, never an accident.

The check reads the row with ``select_for_update()`` inside the admin's transaction, so two
saves racing each other are serialised: the second one sees the first one's version (on
SQLite, biji's IMMEDIATE transactions serialise writers already).
"""

import difflib

from django import forms
from django.db import connection, transaction
from django.urls import NoReverseMatch, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blog.models.revisions import latest_version, version_of

VERSION_FIELD = "edit_version"


def stored_version(obj, lock=True):
    """The version stored in the database (the row locked until the transaction ends)."""
    rows = type(obj)._default_manager.filter(pk=obj.pk)
    # A row can be locked only inside a transaction (the admin's save is one).
    if lock and not transaction.get_autocommit() and connection.features.has_select_for_update:
        rows = rows.select_for_update()
    stored = rows.first()
    return (stored, version_of(stored)) if stored is not None else (None, "")


def last_editor(obj):
    """The user who made the newest revision of ``obj``, if revisions know one."""
    version = latest_version(obj)
    return version.revision.user if version is not None else None


def text_diff(old, new, old_label, new_label):
    """A line diff as HTML (a <pre> with <del>/<ins> lines), empty when nothing differs."""
    lines = list(
        difflib.unified_diff(
            (old or "").splitlines(), (new or "").splitlines(), old_label, new_label, lineterm=""
        )
    )
    if not lines:
        return ""

    def row(line):
        if line.startswith(("+++", "---", "@@")):
            return ("span", "diff-meta", line)
        if line.startswith("+"):
            return ("ins", "diff-ins", line)
        if line.startswith("-"):
            return ("del", "diff-del", line)
        return ("span", "diff-same", line)

    body = format_html_join("\n", '<{0} class="{1}">{2}</{0}>', (row(line) for line in lines))
    return format_html('<pre class="text-diff">{}</pre>', body)


class EditVersionFormMixin(forms.Form):
    """For model forms of objects with ``updated_at``: see the module's docstring.

    ``conflict_fields`` names the text fields diffed in the message.
    """

    edit_version = forms.CharField(
        label=gettext_lazy("version opened"), required=False, widget=forms.HiddenInput
    )
    conflict_fields = ("title", "body")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields[VERSION_FIELD].initial = version_of(self.instance)
        self.conflict = None

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk is None:
            return cleaned
        opened_at = cleaned.get(VERSION_FIELD) or ""
        stored, current = stored_version(self.instance)
        if stored is None or not opened_at or opened_at == current:
            return cleaned
        self.conflict = stored
        # Saving again is now a deliberate choice to replace the newer version.
        self.data = self.data.copy()
        self.data[self.add_prefix(VERSION_FIELD)] = current
        raise forms.ValidationError(self._conflict_message(stored), code="edit_conflict")

    def _conflict_message(self, stored):
        editor = last_editor(stored)
        when = formats.time_format(timezone.localtime(stored.updated_at), "H:i")
        name = stored._meta.verbose_name
        if editor is not None:
            text = _(
                "This %(name)s was changed by %(user)s at %(time)s since you opened it. "
                "Nothing was saved: your text is still below."
            ) % {"name": name, "user": editor.get_username(), "time": when}
        else:
            text = _(
                "This %(name)s was changed at %(time)s since you opened it. "
                "Nothing was saved: your text is still below."
            ) % {"name": name, "time": when}
        diffs = format_html_join(
            "",
            "<p>{}</p>{}",
            (
                (
                    stored._meta.get_field(field).verbose_name.capitalize(),
                    text_diff(
                        getattr(stored, field, ""),
                        self.data.get(self.add_prefix(field), ""),
                        _("saved version"),
                        _("your version"),
                    ),
                )
                for field in self.conflict_fields
                if getattr(stored, field, "") != self.data.get(self.add_prefix(field), "")
            ),
        )
        try:
            info = stored._meta.app_label, stored._meta.model_name
            history = reverse("admin:{}_{}_history".format(*info), args=[stored.pk])
        except NoReverseMatch:
            history = ""
        return format_html(
            '<span class="edit-conflict">{text} {advice} <a href="{history}" target="_blank">'
            "{history_label}</a></span>"
            '<details class="edit-conflict-diff" open><summary>{diff_label}</summary>{diffs}'
            "</details>",
            text=text,
            advice=_(
                "Merge the changes into your text, then save again: that replaces the newer "
                "version, which stays in the history."
            ),
            history=history,
            history_label=_("Open the history in a new tab"),
            diff_label=_("What differs between the saved version and yours"),
            diffs=diffs,
        )
