"""The admin's history of a note or page: who, when, a diff of each version, restore.

Revisions themselves (what is versioned, recording, restoring) are :mod:`blog.models.revisions`.
"""

import json

import reversion
from django.contrib import messages
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join
from django.utils.translation import gettext as _

from blog.authoring.conflicts import VERSION_FIELD, text_diff
from blog.models import Note, Page
from blog.models.revisions import recording, restore, tag_names, version_of, versions_of

DIFFED_FIELDS = {Note: ("title", "summary", "body"), Page: ("title", "body")}


def _current_tag_names(note):
    return sorted(str(tag) for tag in note.tags.all())


def snapshot(obj, version=None):
    """Field → text for the diffed fields (and tags for notes), from a version or ``obj``."""
    fields = DIFFED_FIELDS[type(obj)]
    if version is None:
        data = {field: getattr(obj, field) or "" for field in fields}
        if isinstance(obj, Note):
            data["tags"] = ", ".join(_current_tag_names(obj))
    else:
        stored = version.field_dict
        data = {field: stored.get(field) or "" for field in fields}
        if isinstance(obj, Note):
            data["tags"] = ", ".join(tag_names(version))
    return data


def diff_html(obj, old, new, old_label, new_label):
    """The readable diff of two snapshots: one block per field that differs."""
    rows = []
    for field, old_text in old.items():
        new_text = new.get(field, "")
        if old_text == new_text:
            continue
        label = _("tags") if field == "tags" else obj._meta.get_field(field).verbose_name
        rows.append((str(label).capitalize(), text_diff(old_text, new_text, old_label, new_label)))
    return format_html_join("", '<h3 class="diff-field">{}</h3>{}', rows)


class RevisionAdminMixin:
    """History with author, time and comment; a diff of each version against the current
    text; restore. Admin saves and the change messages become revisions."""

    object_history_template = "admin/blog/revisions/history.html"

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        # Manual: the object joins the revision in log_addition/log_change, after its tags
        # were saved, not at its save() when they are still the old ones.
        with recording(request.user, manual=True):
            return super().changeform_view(request, object_id, form_url, extra_context)

    def log_addition(self, request, obj, message):
        self._add_to_revision(obj, message)
        return super().log_addition(request, obj, message)

    def log_change(self, request, obj, message):
        self._add_to_revision(obj, message)
        return super().log_change(request, obj, message)

    def _add_to_revision(self, obj, message):
        if reversion.is_active():
            reversion.add_to_revision(obj)
            text = change_message_text(message)
            if text:
                reversion.set_comment(text)

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "<path:object_id>/history/<int:version_id>/",
                self.admin_site.admin_view(self.revision_view),
                name="{}_{}_revision".format(*info),
            ),
            *super().get_urls(),
        ]

    def history_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        info = self.opts.app_label, self.opts.model_name
        entries = [
            {
                "version": version,
                "url": reverse("admin:{}_{}_revision".format(*info), args=[obj.pk, version.pk]),
            }
            for version in versions_of(obj)
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": _("History: %(object)s") % {"object": obj},
            "subtitle": None,
            "object": obj,
            "opts": self.opts,
            "entries": entries,
            "module_name": str(self.opts.verbose_name_plural).capitalize(),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.object_history_template, context)

    def revision_view(self, request, object_id, version_id):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404
        version = get_object_or_404(versions_of(obj), pk=version_id)
        info = self.opts.app_label, self.opts.model_name
        change_url = reverse("admin:{}_{}_change".format(*info), args=[obj.pk])
        if request.method == "POST":
            if not self.has_change_permission(request, obj):
                raise PermissionDenied
            with transaction.atomic():
                current = type(obj)._default_manager.select_for_update().get(pk=obj.pk)
                if request.POST.get(VERSION_FIELD) != version_of(current):
                    self.message_user(
                        request,
                        _(
                            "This %(name)s changed since you opened this page: nothing was "
                            "restored. Compare again."
                        )
                        % {"name": self.opts.verbose_name},
                        messages.ERROR,
                    )
                    return HttpResponseRedirect(request.path)
                restore(current, version, request.user)
            self.message_user(
                request,
                _("The version of %(date)s was restored; the text before it is in the history.")
                % {"date": version.revision.date_created.strftime("%Y-%m-%d %H:%M")},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(change_url)
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        newer = snapshot(obj)
        older = snapshot(obj, version)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Compare a version of “%(object)s”") % {"object": obj},
            "subtitle": None,
            "object": obj,
            "opts": self.opts,
            "version": version,
            "diff": diff_html(obj, older, newer, _("this version"), _("current text")),
            "edit_version": version_of(obj),
            "version_field": VERSION_FIELD,
            "can_restore": self.has_change_permission(request, obj),
            "history_url": reverse("admin:{}_{}_history".format(*info), args=[obj.pk]),
            "change_url": change_url,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/blog/revisions/compare.html", context)


def change_message_text(message):
    """The admin's change message (a list of changes) as the sentence its history shows."""
    if not isinstance(message, str):
        message = json.dumps(message)
    return LogEntry(change_message=message).get_change_message()
