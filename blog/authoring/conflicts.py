"""Edit conflicts: a change form remembers the version (``updated_at``) it was opened at, and its
merged texts then, the base of a three-way merge (:mod:`.merge`).

A form older than the stored version is refused and shown again: what the other save changed,
its changes merged into the author's text where they touch other lines, and a choice for each
place both changed. The author's text as submitted stays on the page, and the form carries the
new version, so saving again is a deliberate choice. The row is read ``select_for_update()``, so
two racing saves are serialised.
"""

import difflib
import json
import re
from dataclasses import dataclass

from django import forms
from django.db import connection, transaction
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import capfirst, get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blog.authoring.changes import changed_fields, describe
from blog.authoring.merge import (
    MINE,
    THEIRS,
    Chunk,
    marked_conflicts,
    merge,
    merge_token,
    normalise,
    resolve,
    two_way,
)
from blog.models.revisions import latest_version, version_of, versions_since

VERSION_FIELD = "edit_version"
BASE_SUFFIX = "_base"  # the hidden input beside the version: the texts it was opened at


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
    """A line diff as HTML (a <pre> with <del>/<ins> lines), empty when nothing differs; blocks are
    joined with nothing between, as a newline in a ``pre`` shows as a blank line."""
    lines = list(
        difflib.unified_diff(
            (old or "").splitlines(), (new or "").splitlines(), old_label, new_label, lineterm=""
        )
    )
    if not lines:
        return ""

    def row(line):
        if line.startswith("---"):
            return ("span", "diff-meta", "− " + line[4:])
        if line.startswith("+++"):
            return ("span", "diff-meta", "+ " + line[4:])
        if line.startswith("@@"):
            match = _HUNK.match(line)
            number = match.group(1) if match else "?"
            return ("span", "diff-meta", "⋯ " + _("line %(number)s") % {"number": number})
        if line.startswith("+"):
            return ("ins", "diff-ins", line)
        if line.startswith("-"):
            return ("del", "diff-del", line)
        return ("span", "diff-same", line)

    body = format_html_join("", '<{0} class="{1}">{2}</{0}>', (row(line) for line in lines))
    return format_html('<pre class="text-diff">{}</pre>', body)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)")


class OpenedVersionInput(forms.HiddenInput):
    """The version the form was opened at and, beside it (``<name>_base``), the texts of the
    merged fields at that version: what a merge needs to tell whose change a line is."""

    base = None

    def render(self, name, value, attrs=None, renderer=None):
        version = super().render(name, value, attrs, renderer)
        if self.base is None:
            return version
        return format_html(
            '{}<input type="hidden" name="{}" value="{}">',
            version,
            name + BASE_SUFFIX,
            json.dumps(self.base, ensure_ascii=False),
        )


@dataclass
class Choice:
    """A place where both saves changed the same lines of ``field``, for the author."""

    field: str  # the form field's name
    input: str  # its HTML name
    label: str
    number: int
    theirs: str
    mine: str
    multiline: bool
    chosen: str = ""

    @property
    def name(self):
        return f"merge-{self.input}-{self.number}" if self.multiline else f"merge-{self.input}"


class EditVersionFormMixin(forms.Form):
    """For model forms of objects with ``updated_at`` (module docstring); ``conflict_fields`` names
    the text fields merged."""

    edit_version = forms.CharField(
        label=gettext_lazy("version opened"), required=False, widget=OpenedVersionInput
    )
    conflict_fields = ("title", "summary", "body")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields[VERSION_FIELD].initial = version_of(self.instance)
        self.conflict = None
        base = self._posted_base() if self.is_bound else None
        if base is None and self.instance.pk is not None:
            base = self._texts_of(self.instance)
        self.fields[VERSION_FIELD].widget.base = base

    @property
    def merged_fields(self):
        return [field for field in self.conflict_fields if field in self.fields]

    def _multiline(self, field):
        return isinstance(self.fields[field].widget, forms.Textarea)

    def _texts_of(self, obj):
        return {field: getattr(obj, field, "") or "" for field in self.merged_fields}

    def _posted_base(self):
        try:
            base = json.loads(self.data.get(self.add_prefix(VERSION_FIELD) + BASE_SUFFIX, ""))
        except (TypeError, ValueError):
            return None
        if not isinstance(base, dict):
            return None
        return {key: value for key, value in base.items() if isinstance(value, str)}

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk is None:
            return cleaned
        opened_at = cleaned.get(VERSION_FIELD) or ""
        stored, current = stored_version(self.instance)
        stale = stored is not None and opened_at and opened_at != current
        undecided, stray = self._apply_choices(cleaned, opened_at, None if stale else stored)
        if undecided or stray:
            raise forms.ValidationError(
                self._render_panel(choices=undecided, stray=stray, token=merge_token(opened_at)),
                code="merge_undecided",
            )
        if not stale:
            return cleaned
        self.conflict = stored
        raise forms.ValidationError(
            self._merge(stored, opened_at, current, cleaned), code="edit_conflict"
        )

    # --- the author's choices, from the page shown after a conflict -------------------------

    def _apply_choices(self, cleaned, opened_at, stored):
        """Apply the choices posted for the conflicts marked at ``opened_at``; the conflicts
        left undecided, and whether marker lines were left without their pair."""
        token = merge_token(opened_at)
        undecided, stray, data = [], False, None
        for field in self.merged_fields:
            if field not in cleaned:
                continue
            name = self.add_prefix(field)
            if not self._multiline(field):
                # Their title, chosen: the stored one (only if nothing was saved since).
                if stored is not None and self.data.get(f"merge-{name}") == THEIRS:
                    cleaned[field] = getattr(stored, field)
                continue
            marked, broken = marked_conflicts(cleaned[field] or "", token)
            if not marked and not broken:
                continue
            choices = {c.number: self.data.get(f"merge-{name}-{c.number}") for c in marked}
            text, left = resolve(cleaned[field] or "", token, choices)
            cleaned[field] = text
            if left or broken:
                stray = stray or broken
                label = self._label(field)
                undecided += [
                    Choice(field, name, label, c.number, c.theirs, c.mine, True) for c in left
                ]
                data = data if data is not None else self.data.copy()
                data[name] = text  # the decided ones applied; the others still marked
        if data is not None:
            self.data = data
        return undecided, stray

    # --- a stale form: merge and ask -----------------------------------------------------------

    def _merge(self, stored, opened_at, current, cleaned):
        base = self._posted_base()
        token = merge_token(current)
        labels = (_("their version"), _("your version"))
        data = self.data.copy()
        # Saving again is now a deliberate choice over the newer version.
        data[self.add_prefix(VERSION_FIELD)] = current
        their_changes, choices, mine_texts, applied = [], [], [], 0
        for field in self.merged_fields:
            name = self.add_prefix(field)
            label = self._label(field)
            # Compared as form fields clean them: line endings and outer blank space aside.
            tidy = normalise if self._multiline(field) else (lambda text: (text or "").strip())
            theirs = tidy(getattr(stored, field, ""))
            mine = tidy(cleaned[field] if field in cleaned else self.data.get(name, ""))
            old = tidy(base[field]) if base is not None and field in base else None
            if old is not None and old != theirs:
                diff = text_diff(old, theirs, _("when you opened it"), _("saved since"))
                their_changes.append((label, diff))
            elif old is None and theirs != mine:
                diff = text_diff(theirs, mine, _("saved version"), _("your version"))
                their_changes.append((label, diff))
            if self._multiline(field):
                result = merge(old, theirs, mine) if old is not None else two_way(theirs, mine)
                merged = result.text(token, labels)
                applied += result.theirs_applied
                choices += [
                    Choice(field, name, label, number, "".join(c.theirs), "".join(c.mine), True)
                    for number, c in enumerate(result.conflicts, start=1)
                ]
                if merged != mine:
                    mine_texts.append((stored._meta.get_field(field).verbose_name, mine))
            else:
                chunk = Chunk(old, theirs, mine)
                merged = chunk.merged()
                if merged is None:  # both changed it: the form keeps the author's
                    merged = mine
                    choices.append(Choice(field, name, label, 1, theirs, mine, False, MINE))
                applied += chunk.kind == THEIRS
            data[name] = merged
        self.data = data
        self.fields[VERSION_FIELD].widget.base = self._texts_of(stored)
        return self._render_panel(
            stored=stored,
            opened_at=opened_at,
            their_changes=their_changes,
            two_way=base is None,
            choices=choices,
            applied=applied,
            mine_texts=mine_texts,
            token=token,
        )

    def _label(self, field):
        return capfirst(self.instance._meta.get_field(field).verbose_name)

    def _other_fields_differing(self):
        """Labels of the other fields whose value in the form is not the saved one."""
        skip = {*self.merged_fields, VERSION_FIELD}
        return [
            str(self.fields[name].label or name)
            for name in changed_fields(self)
            if name not in skip and name in self.fields
        ]

    def _render_panel(self, *, stored=None, opened_at="", choices=(), token="", **context):
        obj = stored if stored is not None else self.instance
        lead = ""
        other_saves = []
        if stored is not None:
            lead = self._lead(stored)
            other_saves = [
                {
                    "user": version.revision.user.get_username() if version.revision.user else "",
                    "date": version.revision.date_created,
                    "what": describe(version.revision.comment, type(stored)),
                }
                for version in versions_since(stored, opened_at)
            ]
            context["others"] = get_text_list(self._other_fields_differing(), _("and"))
        try:
            info = obj._meta.app_label, obj._meta.model_name
            history = reverse("admin:{}_{}_history".format(*info), args=[obj.pk])
        except NoReverseMatch:
            history = ""
        return mark_safe(  # noqa: S308 (a template: everything in it is escaped)
            render_to_string(
                "admin/blog/conflict/panel.html",
                {
                    **context,
                    "lead": lead,
                    "other_saves": other_saves,
                    "choices": choices,
                    "token": token,
                    "history_url": history,
                    "object_name": obj._meta.verbose_name,
                },
            ).strip()
        )

    def _lead(self, stored):
        editor = last_editor(stored)
        when = formats.time_format(timezone.localtime(stored.updated_at), "H:i")
        name = stored._meta.verbose_name
        if editor is not None:
            return _(
                "This %(name)s was changed by %(user)s at %(time)s since you opened it. "
                "Nothing was saved yet."
            ) % {"name": name, "user": editor.get_username(), "time": when}
        return _(
            "This %(name)s was changed at %(time)s since you opened it. Nothing was saved yet."
        ) % {"name": name, "time": when}
