"""The admin's Markdown import, run by the background worker (:mod:`blog.background`).

:data:`import_archive` unpacks the run's archive (:mod:`.run_folders`), imports or checks it as
the uploading user, and writes the progress and the report, in that user's language, into the
run. Its queue is its own (:data:`QUEUE`) and its priority below every other task's, so a
worker of the other queues never takes it and one of every queue takes other work first.
Idempotent: a finished run is not imported again; a killed one is, from the start.
"""

import re
import shutil
import time

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_tasks import TaskResultStatus, task
from django_tasks.exceptions import TaskResultDoesNotExist

from blog.models import ImportRun
from blog.porting.archives import UnsafeArchive, unpack
from blog.porting.limits import Deadline
from blog.porting.report import CREATED, UPDATED
from blog.porting.report_keys import explain_front_matter
from blog.porting.run import import_markdown
from blog.porting.run_folders import ARCHIVE, clear_folder, delete_expired_archives, run_folder

State = ImportRun.State
QUEUE = "imports"
PRIORITY = -10  # below every other task's (0)
# Seconds past BIJI_IMPORT_SECONDS before the worker stops the task: the last file begun in
# time (its images, its renders, each bounded) and the report.
TIME_MARGIN = 120


class RunProgress:
    """A stream for :class:`.report.Progress` writing "n of m" into the run, at most every
    ``every`` seconds and never inside a transaction (a dry run's, rolled back, would hide it)."""

    BAR = re.compile(r"\] (\d+)/(\d+) ")

    def __init__(self, run_id, every=0.5):
        self.run_id = run_id
        self.every = every
        self.done = self.total = 0
        self.written_at = 0.0

    def isatty(self):
        return True

    def write(self, text):
        if match := self.BAR.search(text):
            self.done, self.total = int(match[1]), int(match[2])

    def flush(self):
        if not transaction.get_autocommit():
            return
        now = time.monotonic()
        if self.done == self.total or now - self.written_at >= self.every:
            self.written_at = now
            ImportRun.objects.filter(pk=self.run_id).update(
                files_done=self.done, files_total=self.total
            )


def enqueue_import(run_id):
    """Queue run ``run_id``'s import, reported in the active language (the uploading admin's)."""
    return import_archive.enqueue(run_id, translation.get_language())


def _time_limit():
    seconds = settings.BIJI_IMPORT_SECONDS
    return seconds + TIME_MARGIN if seconds else 0  # 0: none


@task(queue_name=QUEUE, priority=PRIORITY, time_limit=_time_limit())
def import_archive(run_id, language=None):
    with translation.override(language or settings.LANGUAGE_CODE):
        return _import_archive(run_id)


def pending_runs(user):
    """``user``'s runs waiting for the worker or running: their task is still to run or
    running (a run whose task is gone, or ended without saying so, is not)."""
    runs = ImportRun.objects.filter(user=user, state__in=[State.QUEUED, State.RUNNING])
    return [run for run in runs if _task_pending(run)]


def _task_pending(run):
    try:
        status = import_archive.get_result(run.task_id).status
    except (TaskResultDoesNotExist, ValueError):
        return False
    return status in (TaskResultStatus.READY, TaskResultStatus.RUNNING)


def _import_archive(run_id):
    deadline = Deadline(settings.BIJI_IMPORT_SECONDS or None)
    delete_expired_archives()
    run = ImportRun.objects.select_related("user").filter(pk=run_id).first()
    if run is None:
        shutil.rmtree(run_folder(run_id), ignore_errors=True)
        return "already finished"
    if run.is_finished:
        clear_folder(run)
        return "already finished"
    if run.user is None:
        # The importing user's rights bound the import; without them it would run as the
        # command line does, with no limit.
        return _finish(run, State.FAILED, error=_("The user who uploaded the archive was deleted."))
    ImportRun.objects.filter(pk=run_id).update(
        state=State.RUNNING, started_at=timezone.now(), files_done=0, files_total=0, error=""
    )
    folder = run_folder(run_id)
    unpacked = folder / "unpacked"
    shutil.rmtree(unpacked, ignore_errors=True)  # what a killed attempt left
    try:
        root, skipped = unpack(folder / ARCHIVE, unpacked)
    except (UnsafeArchive, FileNotFoundError) as error:
        return _finish(run, State.FAILED, error=str(error))
    progress = RunProgress(run_id)
    report = import_markdown(
        [root], fmt=run.format, dry_run=run.dry_run, user=run.user, progress_stream=progress,
        deadline=deadline, workspace=folder,
    )  # fmt: skip
    for name, reason in skipped:
        report.error(name, _("not unpacked: %(reason)s") % {"reason": reason})
    explain_front_matter(report, root, run.format)
    done = len(report.outcomes)
    lines = [headline(report), *report.lines(translation.get_language())]
    return _finish(run, State.DONE, report="\n".join(lines), files=(done, done))


def headline(report):
    """The report's first line: a check or an import, and what it did or would do, counted."""
    counts = {"created": report.counts.get(CREATED, 0), "updated": report.counts.get(UPDATED, 0)}
    checked = _(
        "Checked: nothing was written; importing would create %(created)d and update %(updated)d."
    )
    imported = _("Imported: %(created)d created, %(updated)d updated.")
    line = (checked if report.dry_run else imported) % counts
    if errors := len(report.errors):
        line = ngettext(
            "%(line)s %(count)d error: see below.", "%(line)s %(count)d errors: see below.", errors
        ) % {"line": line, "count": errors}
    return line


def _finish(run, state, report="", error="", files=None):
    fields = {"state": state, "finished_at": timezone.now(), "report": report, "error": error}
    if files:
        fields["files_done"], fields["files_total"] = files
    ImportRun.objects.filter(pk=run.pk).update(**fields)
    run.state, run.finished_at = state, fields["finished_at"]
    clear_folder(run)
    return state


def record_failed_import(sender, task_result, **kwargs):
    """A run whose task failed for good (an error that does not retry, or its attempts spent,
    or its workers killed each time) says so, with the error's last line."""
    if task_result.status != TaskResultStatus.FAILED or not task_result.args:
        return
    try:
        if task_result.task.func is not import_archive.func:
            return
    except (ImportError, AttributeError):
        return
    run = ImportRun.objects.filter(pk=task_result.args[0]).first()
    if run is None or run.is_finished:
        return
    error = task_result.errors[-1].traceback.strip().splitlines()[-1] if task_result.errors else ""
    language = task_result.args[1] if len(task_result.args) > 1 else None
    with translation.override(language or settings.LANGUAGE_CODE):
        _finish(run, State.FAILED, error=error or _("The import stopped."))
