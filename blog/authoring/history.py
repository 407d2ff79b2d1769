"""The admin's history of a note, page or glossary term: who, when, what changed, a diff of any
two versions (or of one with the current text), restore.
"""

import json

import reversion
from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join
from django.utils.translation import gettext as _

from blog.authoring.changes import change_message, describe, with_labels
from blog.authoring.conflicts import VERSION_FIELD, text_diff
from blog.models import Note, Page, Term
from blog.models.revisions import (
    local_date,
    recording,
    render_version_ahead,
    restore,
    version_of,
    versions_of,
)
from blog.text.bilingual import in_interface_language

DIFFED_FIELDS = {
    Note: ("title", "summary", "body"),
    Page: ("title", "body"),
    Term: (
        *("chinese", "english", "chinese_variants", "english_variants"),
        *("definition_zh", "definition_en"),
    ),
}
CURRENT = "current"  # the compare page's name for the text as it is now


def _tag_names(tags):
    """Tag names in the admin's language, sorted: ``tags`` as (Chinese, English) pairs."""
    return sorted(filter(None, (in_interface_language(zh, en) for zh, en in tags)))


def _version_tags(version):
    return [
        (data.get("name_zh") or "", data.get("name") or "")
        for data in (
            tag_version.field_dict
            for tag_version in version.revision.version_set.filter(
                content_type__app_label="blog", content_type__model="tag"
            )
        )
    ]


def snapshot(obj, version=None):
    """Field → text for the diffed fields (and tags for notes), from a version or ``obj``."""
    fields = DIFFED_FIELDS[type(obj)]
    if version is None:
        data = {field: getattr(obj, field) or "" for field in fields}
        if isinstance(obj, Note):
            tags = [(tag.name_zh, tag.name) for tag in obj.tags.all()]
            data["tags"] = ", ".join(_tag_names(tags))
    else:
        stored = version.field_dict
        data = {field: stored.get(field) or "" for field in fields}
        if isinstance(obj, Note):
            data["tags"] = ", ".join(_tag_names(_version_tags(version)))
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
    """History with author, time and what changed, diffs and restore. Admin saves become revisions,
    whose change message names the fields the author really changed
    (:func:`blog.authoring.changes.change_message`)."""

    object_history_template = "admin/blog/revisions/history.html"

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        # Manual: the object joins the revision in log_addition/log_change, after its tags
        # were saved, not at its save() when they are still the old ones.
        with recording(request.user, manual=True):
            return super().changeform_view(request, object_id, form_url, extra_context)

    def construct_change_message(self, request, form, formsets, add=False):
        return change_message(form, add)

    def log_addition(self, request, obj, message):
        self._add_to_revision(obj, message)
        return super().log_addition(request, obj, self._labelled(message))

    def log_change(self, request, obj, message):
        self._add_to_revision(obj, message)
        return super().log_change(request, obj, self._labelled(message))

    def _labelled(self, message):
        return with_labels(message, self.model) if isinstance(message, list) else message

    def _add_to_revision(self, obj, message):
        if reversion.is_active():
            reversion.add_to_revision(obj)
            comment = json.dumps(message) if isinstance(message, list) else message
            if comment:
                reversion.set_comment(comment)

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "<path:object_id>/history/compare/",
                self.admin_site.admin_view(self.compare_view),
                name="{}_{}_compare".format(*info),
            ),
            path(
                "<path:object_id>/history/<int:version_id>/",
                self.admin_site.admin_view(self.revision_view),
                name="{}_{}_revision".format(*info),
            ),
            *super().get_urls(),
        ]

    def _url(self, view, *args):
        info = self.opts.app_label, self.opts.model_name
        return reverse("admin:{}_{}_{}".format(*info, view), args=args)

    def _viewable(self, request, object_id):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        return obj

    def _context(self, request, obj, **context):
        return {
            **self.admin_site.each_context(request),
            "subtitle": None,
            "object": obj,
            "opts": self.opts,
            "history_url": self._url("history", obj.pk),
            "change_url": self._url("change", obj.pk),
            **context,
        }

    def history_view(self, request, object_id, extra_context=None):
        obj = self._viewable(request, object_id)
        entries = [
            {
                "version": version,
                "what": describe(version.revision.comment, self.model),
                "url": self._url("revision", obj.pk, version.pk),
            }
            for version in versions_of(obj)
        ]
        context = self._context(
            request,
            obj,
            title=_("History: %(object)s") % {"object": obj},
            entries=entries,
            current=CURRENT,
            compare_url=self._url("compare", obj.pk),
            module_name=str(self.opts.verbose_name_plural).capitalize(),
            **(extra_context or {}),
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.object_history_template, context)

    def compare_view(self, request, object_id):
        """Any two versions, or one and the current text (``?from=…&to=…``), the older first."""
        obj = self._viewable(request, object_id)
        versions = versions_of(obj)
        picked = []
        for key in ("from", "to"):
            value = request.GET.get(key, CURRENT)
            if value == CURRENT:
                picked.append(None)
            elif value.isdigit() and (version := versions.filter(pk=int(value)).first()):
                picked.append(version)
            else:
                return self._back_to_history(request, obj, _("That version does not exist."))
        older, newer = picked
        if older == newer:
            return self._back_to_history(request, obj, _("Choose two different versions."))
        if older is None or (newer is not None and _is_newer(older, newer)):
            older, newer = newer, older
        if newer is None:  # a version and the current text: the page that can restore it
            return HttpResponseRedirect(self._url("revision", obj.pk, older.pk))
        context = self._context(
            request,
            obj,
            title=_("Compare two versions of “%(object)s”") % {"object": obj},
            version=older,
            newer=newer,
            diff=diff_html(
                obj,
                snapshot(obj, older),
                snapshot(obj, newer),
                local_date(older.revision.date_created),
                local_date(newer.revision.date_created),
            ),
            restore_urls=[self._url("revision", obj.pk, v.pk) for v in (older, newer)],
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/blog/revisions/compare.html", context)

    def _back_to_history(self, request, obj, message):
        self.message_user(request, message, messages.ERROR)
        return HttpResponseRedirect(self._url("history", obj.pk))

    def revision_view(self, request, object_id, version_id):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404
        version = get_object_or_404(versions_of(obj), pk=version_id)
        change_url = self._url("change", obj.pk)
        if request.method == "POST":
            if not self.has_change_permission(request, obj):
                raise PermissionDenied
            refused = render_version_ahead(obj, version)
            if refused is not None:
                self.message_user(request, refused, messages.ERROR)
                return HttpResponseRedirect(request.path)
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
                % {"date": local_date(version.revision.date_created)},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(change_url)
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        context = self._context(
            request,
            obj,
            title=_("Compare a version of “%(object)s”") % {"object": obj},
            version=version,
            diff=diff_html(
                obj, snapshot(obj, version), snapshot(obj), _("this version"), _("current text")
            ),
            edit_version=version_of(obj),
            version_field=VERSION_FIELD,
            can_restore=self.has_change_permission(request, obj),
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/blog/revisions/compare.html", context)


def _is_newer(version, other):
    return (version.revision.date_created, version.pk) > (other.revision.date_created, other.pk)
