"""The Markdown import as an admin page: upload a .zip, then **Check** it or **Import** it.

The archive is checked at once (:mod:`.archives`), kept in the run's private folder and
imported by the worker (:mod:`.tasks`); the run's page shows its progress, then its report.
"""

import shutil

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import OperationalError, transaction
from django.http import HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy
from django_tasks import TaskResultStatus
from django_tasks.exceptions import TaskResultDoesNotExist

from blog.models import ImportRun
from blog.porting import archives
from blog.porting.formats import FORMATS
from blog.porting.run_folders import (
    ArchiveNotKept,
    checked_archive,
    is_finished_check,
    kept_until,
    put_back_checked_archive,
    run_folder,
    store_archive,
    take_checked_archive,
)
from blog.porting.tasks import enqueue_import, import_archive, pending_runs

State = ImportRun.State
CHECK, IMPORT = "check", "import"

# Seconds between two refreshes of a running import's page.
REFRESH_SECONDS = 2


class ImportForm(forms.Form):
    archive = forms.FileField(
        label=gettext_lazy("Zip archive"),
        help_text=gettext_lazy("A .zip of your site's folder (Markdown files and their images)."),
    )
    format = forms.ChoiceField(
        label=gettext_lazy("Front matter of"),
        choices=[("auto", gettext_lazy("Any: Hugo, Hexo or Jekyll"))]
        + [(name, name.capitalize()) for name in FORMATS],
        initial="auto",
    )
    # Sent by the button pressed (Check comes first: the one Enter presses); no field shown.
    mode = forms.ChoiceField(
        choices=[(CHECK, CHECK), (IMPORT, IMPORT)],
        widget=forms.HiddenInput,
        error_messages={
            "required": gettext_lazy("Press Check or Import."),
            "invalid_choice": gettext_lazy("Press Check or Import."),
        },
    )

    def clean_archive(self):
        archive = self.cleaned_data["archive"]
        try:
            archives.check(archive)
        except archives.UnsafeArchive as error:
            raise forms.ValidationError(str(error)) from None
        return archive


def may_import(user):
    return user.is_active and user.is_staff and user.has_perm("blog.add_note")


def sees_all_runs(user):
    return user.has_perm("blog.view_importrun")


def may_import_checked(user, check):
    """Whether ``user`` may import ``check``'s archive: its uploader, or one who sees every
    run, if they may import."""
    return may_import(user) and (check.user_id == user.pk or sees_all_runs(user))


class TooManyImports(Exception):  # noqa: N818 (a refusal, said to the user)
    """The user has as many imports waiting or running as one may have."""

    def __init__(self, count, checked=False):
        if checked:  # the archive stays kept: no second upload
            message = ngettext(
                "You have %(count)d import waiting or running, as many as one user may have at "
                "a time. Import this archive once it has finished.",
                "You have %(count)d imports waiting or running, as many as one user may have at "
                "a time. Import this archive once one of them has finished.",
                count,
            )
        else:
            message = ngettext(
                "You have %(count)d import waiting or running, as many as one user may have at "
                "a time. Upload this archive again once it has finished.",
                "You have %(count)d imports waiting or running, as many as one user may have at "
                "a time. Upload this archive again once one of them has finished.",
                count,
            )
        super().__init__(message % {"count": count})


def start_import(upload, fmt, dry_run, user):
    """Store the upload and its run and enqueue the import (a check when ``dry_run``); all or
    nothing. Raises :class:`TooManyImports` past ``BIJI_IMPORTS_PER_USER`` pending runs."""
    return _start(user, upload.name, fmt, dry_run, lambda run: store_archive(run.pk, upload))


def import_checked(check, user):
    """Enqueue ``user``'s import of the archive ``check`` keeps; all or nothing. Raises
    :class:`TooManyImports`, or :class:`~.run_folders.ArchiveNotKept` when it is gone."""
    return _start(
        user, check.archive_name, check.format, False,
        place=lambda run: take_checked_archive(check, run.pk),
        undo=lambda run: put_back_checked_archive(check, run.pk),
    )  # fmt: skip


def _start(user, archive_name, fmt, dry_run, place, undo=None):
    run = None
    try:
        with transaction.atomic():
            # One user's uploads counted one at a time (SQLite's write lock does it there).
            get_user_model().objects.select_for_update().only("pk").get(pk=user.pk)
            pending = len(pending_runs(user))
            if pending >= settings.BIJI_IMPORTS_PER_USER:
                raise TooManyImports(pending, checked=undo is not None)
            run = ImportRun.objects.create(
                user=user, archive_name=archive_name[:255], format=fmt, dry_run=dry_run
            )
            place(run)
            result = enqueue_import(run.pk)  # reported in this admin's language
            run.task_id = result.id
            run.save(update_fields=["task_id"])
    except BaseException:
        if run is not None and run.pk:
            if undo is not None:
                undo(run)
            shutil.rmtree(run_folder(run.pk), ignore_errors=True)
        raise
    return run


def import_markdown_view(request):
    if not may_import(request.user):
        raise PermissionDenied
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        dry_run = data["mode"] == CHECK
        try:
            run = start_import(data["archive"], data["format"], dry_run, request.user)
        except TooManyImports as refusal:
            form.add_error(None, str(refusal))
        except OperationalError:
            form.add_error(None, busy())
        else:
            return redirect("admin:blog_importrun_change", run.pk)
    context = {
        **admin.site.each_context(request),
        "title": _("Import Markdown"),
        "form": form,
        "max_files": archives.MAX_FILES,
        "max_megabytes": archives.MAX_UNPACKED_BYTES // (1024 * 1024),
        "max_minutes": settings.BIJI_IMPORT_SECONDS / 60,
        "per_user": settings.BIJI_IMPORTS_PER_USER,
        "runs_url": reverse("admin:blog_importrun_changelist"),
        "kept_days": settings.BIJI_CHECKED_ARCHIVE_DAYS,
        "submit_buttons": [
            {"name": "mode", "value": CHECK, "label": _("Check"), "default": True},
            {"name": "mode", "value": IMPORT, "label": _("Import")},
        ],
        "opts": _note_opts(),
    }
    return TemplateResponse(request, "admin/blog/import_markdown.html", context)


def busy():
    # SQLite has one writer, and another held it past the busy timeout.
    return _("The database is busy (another import is running?): try again soon.")


def kind_label(run):
    return pgettext("import run", "Check") if run.dry_run else pgettext("import run", "Import")


def state_text(run, interrupted=False):
    """What ``run`` is doing or did, saying whether it is a check or an import."""
    check = run.dry_run
    if run.state == State.RUNNING and interrupted:
        if check:
            return _("Check interrupted: waiting to run again")
        return _("Import interrupted: waiting to run again")
    texts = {
        State.QUEUED: (_("Check: waiting for the worker"), _("Import: waiting for the worker")),
        State.RUNNING: (_("Checking"), _("Importing")),
        State.DONE: (_("Checked"), _("Imported")),
        State.FAILED: (_("Check failed"), _("Import failed")),
    }
    return texts[run.state][0 if check else 1]


def _note_opts():
    from blog.models import Note

    return Note._meta


class KindFilter(admin.SimpleListFilter):
    title = pgettext_lazy("import run", "Kind")
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return [(CHECK, pgettext_lazy("import run", "Check")),
                (IMPORT, pgettext_lazy("import run", "Import"))]  # fmt: skip

    def queryset(self, request, queryset):
        if self.value() in (CHECK, IMPORT):
            return queryset.filter(dry_run=self.value() == CHECK)
        return queryset


class ImportRunAdmin(admin.ModelAdmin):
    """Import runs, read-only: one's own, or everybody's with the model's view permission."""

    change_form_template = "admin/blog/import_run.html"
    list_display = ["created_at", "archive_name", "user", "kind", "state_label", "progress"]
    list_filter = ["state", KindFilter]
    list_select_related = ["user"]
    date_hierarchy = "created_at"
    fields = ["archive_name", "user", "format", "kind", "created_at", "started_at"]
    fields += ["finished_at", "files_done", "files_total", "error"]
    readonly_fields = ["kind"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def _sees_all(self, request):
        return sees_all_runs(request.user)

    def has_view_permission(self, request, obj=None):
        if self._sees_all(request):
            return True
        return may_import(request.user) and (obj is None or obj.user_id == request.user.pk)

    def has_module_permission(self, request):
        return self._sees_all(request) or may_import(request.user)

    def get_queryset(self, request):
        runs = super().get_queryset(request)
        return runs if self._sees_all(request) else runs.filter(user=request.user)

    @admin.display(description=pgettext_lazy("import run", "Kind"), ordering="dry_run")
    def kind(self, run):
        return kind_label(run)

    @admin.display(description=pgettext_lazy("import run", "State"), ordering="state")
    def state_label(self, run):
        interrupted = (
            run.state == State.RUNNING and self._task_status(run) == TaskResultStatus.READY
        )
        return state_text(run, interrupted)

    @admin.display(description=gettext_lazy("Progress"))
    def progress(self, run):
        if not run.files_total:
            return "—"
        return _("%(done)d of %(total)d files") % {
            "done": run.files_done,
            "total": run.files_total,
        }

    @staticmethod
    def _task_status(run):
        try:
            return import_archive.get_result(run.task_id).status
        except (TaskResultDoesNotExist, ValueError):
            return None

    def get_urls(self):
        view = self.admin_site.admin_view(self.import_checked_view)
        own = [path("<path:object_id>/import/", view, name="blog_importrun_import")]
        return own + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, unquote(object_id))
        extra = {}
        if run is not None:
            report_lines = run.report.splitlines()
            extra = {
                "run": run,
                "state_label": self.state_label(run),
                # A finished run's first line is its report's: what it did, or would do.
                "headline": report_lines[0] if run.state == State.DONE and report_lines else "",
                "progress": self.progress(run),
                "report_lines": report_lines,
                "refresh_seconds": None if run.is_finished else REFRESH_SECONDS,
                "import_url": reverse("admin:blog_note_import"),
                **self._checked_archive_context(request, run),
            }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def _checked_archive_context(self, request, run):
        """A finished check's archive: the button that imports it, until when it is kept."""
        if not is_finished_check(run) or not may_import_checked(request.user, run):
            return {}
        if checked_archive(run) is None:
            return {"archive_gone": ArchiveNotKept()}
        return {
            "import_checked_url": reverse("admin:blog_importrun_import", args=[run.pk]),
            "kept_until": kept_until(run),
        }

    def import_checked_view(self, request, object_id):
        """POST: import a finished check's archive without uploading it again."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        check = self.get_object(request, unquote(object_id))
        if check is None or not may_import_checked(request.user, check):
            raise PermissionDenied
        back = redirect("admin:blog_importrun_change", check.pk)
        if not is_finished_check(check):
            messages.error(request, _("Only a finished check can be imported from its page."))
            return back
        try:
            run = import_checked(check, request.user)
        except (TooManyImports, ArchiveNotKept) as refusal:
            messages.error(request, str(refusal))
            return back
        except OperationalError:
            messages.error(request, busy())
            return back
        return redirect("admin:blog_importrun_change", run.pk)
