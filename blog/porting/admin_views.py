"""The Markdown import as an admin page, for authors who do not use a shell.

Upload a .zip of a Hugo, Hexo or Jekyll folder (or of a biji export). Staff with the
permission to add notes only; the import may do only what the uploading user may do. The
archive is checked at once (:func:`blog.porting.archives.check`: a zip, its file count and
unpacked size bounded, no path outside its folder), stored in the private folder and
imported in the background (:mod:`blog.porting.tasks`): the page answers at once and
redirects to the run's page, which shows the progress, refreshing itself, and the report at
the end. Past runs are listed in the admin (:class:`ImportRunAdmin`, read-only).

A user may have ``BIJI_IMPORTS_PER_USER`` imports waiting or running; the page refuses
another until one has finished, saying so in the user's language.
"""

import shutil

from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import OperationalError, transaction
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy
from django_tasks import TaskResultStatus
from django_tasks.exceptions import TaskResultDoesNotExist

from blog.models import ImportRun
from blog.porting import archives
from blog.porting.formats import FORMATS
from blog.porting.tasks import (
    enqueue_import,
    import_archive,
    pending_runs,
    run_folder,
    store_archive,
)

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
    dry_run = forms.BooleanField(
        label=gettext_lazy("Dry run: only show what would happen"), required=False, initial=True
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


class TooManyImports(Exception):  # noqa: N818 (a refusal, said to the user)
    """The user has as many imports waiting or running as one may have."""

    def __init__(self, count):
        super().__init__(
            ngettext(
                "You have %(count)d import waiting or running, as many as one user may have at "
                "a time. Upload this archive again once it has finished.",
                "You have %(count)d imports waiting or running, as many as one user may have at "
                "a time. Upload this archive again once one of them has finished.",
                count,
            )
            % {"count": count}
        )


def start_import(upload, fmt, dry_run, user):
    """Store the archive and its run, and enqueue the import; all or nothing. Raises
    :class:`TooManyImports` when the user has ``BIJI_IMPORTS_PER_USER`` runs pending."""
    run = None
    try:
        with transaction.atomic():
            # One user's uploads counted one at a time (SQLite's write lock does it there).
            get_user_model().objects.select_for_update().only("pk").get(pk=user.pk)
            pending = len(pending_runs(user))
            if pending >= settings.BIJI_IMPORTS_PER_USER:
                raise TooManyImports(pending)
            run = ImportRun.objects.create(
                user=user, archive_name=upload.name[:255], format=fmt, dry_run=dry_run
            )
            store_archive(run.pk, upload)
            result = enqueue_import(run.pk)  # reported in this admin's language
            run.task_id = result.id
            run.save(update_fields=["task_id"])
    except BaseException:
        if run is not None and run.pk:
            shutil.rmtree(run_folder(run.pk), ignore_errors=True)
        raise
    return run


def import_markdown_view(request):
    if not may_import(request.user):
        raise PermissionDenied
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = start_import(data["archive"], data["format"], data["dry_run"], request.user)
        except TooManyImports as refusal:
            form.add_error(None, str(refusal))
        except OperationalError:
            # SQLite has one writer, and another held it past the busy timeout.
            form.add_error(
                None, _("The database is busy (another import is running?): try again soon.")
            )
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
        "opts": _note_opts(),
    }
    return TemplateResponse(request, "admin/blog/import_markdown.html", context)


def _note_opts():
    from blog.models import Note

    return Note._meta


class ImportRunAdmin(admin.ModelAdmin):
    """Import runs, read-only: an importer sees their own, a user with the model's view
    permission (a superuser) everybody's."""

    change_form_template = "admin/blog/import_run.html"
    list_display = ["created_at", "archive_name", "user", "dry_run", "state_label", "progress"]
    list_filter = ["state", "dry_run"]
    list_select_related = ["user"]
    date_hierarchy = "created_at"
    fields = ["archive_name", "user", "format", "dry_run", "created_at", "started_at"]
    fields += ["finished_at", "files_done", "files_total", "error"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def _sees_all(self, request):
        return request.user.has_perm("blog.view_importrun")

    def has_view_permission(self, request, obj=None):
        if self._sees_all(request):
            return True
        return may_import(request.user) and (obj is None or obj.user_id == request.user.pk)

    def has_module_permission(self, request):
        return self._sees_all(request) or may_import(request.user)

    def get_queryset(self, request):
        runs = super().get_queryset(request)
        return runs if self._sees_all(request) else runs.filter(user=request.user)

    @admin.display(description=pgettext_lazy("import run", "State"), ordering="state")
    def state_label(self, run):
        if (
            run.state == ImportRun.State.RUNNING
            and self._task_status(run) == TaskResultStatus.READY
        ):
            return _("Interrupted: waiting to run again")
        return run.get_state_display()

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

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, object_id)
        extra = {}
        if run is not None:
            extra = {
                "run": run,
                "state_label": self.state_label(run),
                "progress": self.progress(run),
                "report_lines": run.report.splitlines(),
                "refresh_seconds": None if run.is_finished else REFRESH_SECONDS,
                "import_url": reverse("admin:blog_note_import"),
            }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})
