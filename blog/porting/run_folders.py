"""Each admin import's private folder, and the archive a check keeps there.

``BIJI_PRIVATE_ROOT/imports/<run id>``, owner-only and never served, holds the archive and,
during the run, its unpacked files. It goes when the run ends, but a finished check keeps its
archive for ``BIJI_CHECKED_ARCHIVE_DAYS`` so its report can import it without a new upload.

May import: :mod:`blog.models`.
"""

import os
import shutil
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from blog.models import ImportRun

ARCHIVE = "archive.zip"


class ArchiveNotKept(Exception):  # noqa: N818 (said to the user)
    """The check's archive is no longer kept: imported already, or past its days."""

    def __init__(self):
        days = settings.BIJI_CHECKED_ARCHIVE_DAYS
        if days <= 0:
            message = _("Checked archives are not kept on this site: upload it again to import it.")
        else:
            message = ngettext(
                "This archive is no longer kept: it was imported already, or checked more than "
                "%(days)d day ago. Upload it again to import it.",
                "This archive is no longer kept: it was imported already, or checked more than "
                "%(days)d days ago. Upload it again to import it.",
                days,
            ) % {"days": days}
        super().__init__(message)


def imports_folder():
    return Path(settings.BIJI_PRIVATE_ROOT) / "imports"


def run_folder(run_id):
    """Where a run's archive waits and is unpacked: owner-only, outside MEDIA_ROOT."""
    return imports_folder() / str(run_id)


def store_archive(run_id, upload):
    """Write an uploaded file (a Django ``UploadedFile``) into the run's folder, mode 600."""
    folder = _make_folder(run_id)
    path = folder / ARCHIVE
    with open(path, "wb", opener=lambda name, flags: os.open(name, flags, 0o600)) as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return path


def _make_folder(run_id):
    Path(settings.BIJI_PRIVATE_ROOT).mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = run_folder(run_id)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def is_finished_check(run):
    """Whether ``run`` is a check (a dry run) that ended with its report."""
    return run.dry_run and run.state == ImportRun.State.DONE


def keeps_archive(run):
    """Whether ``run`` keeps its archive once finished: a check's, if archives are kept."""
    return is_finished_check(run) and settings.BIJI_CHECKED_ARCHIVE_DAYS > 0


def kept_until(run):
    """When a finished check's archive is deleted."""
    return run.finished_at + timedelta(days=settings.BIJI_CHECKED_ARCHIVE_DAYS)


def checked_archive(run, now=None):
    """The archive a finished check keeps, or None (imported, past its days, or none kept)."""
    if not keeps_archive(run) or (now or timezone.now()) >= kept_until(run):
        return None
    path = run_folder(run.pk) / ARCHIVE
    return path if path.is_file() else None


def clear_folder(run):
    """At the end of ``run``: its folder deleted, but for the archive a check keeps."""
    folder = run_folder(run.pk)
    if keeps_archive(run):
        shutil.rmtree(folder / "unpacked", ignore_errors=True)
    else:
        shutil.rmtree(folder, ignore_errors=True)


def take_checked_archive(check, run_id):
    """Move the archive ``check`` keeps into the folder of run ``run_id``; raises
    :class:`ArchiveNotKept`. A move, atomic: of two imports asked at once, one gets it."""
    if checked_archive(check) is None:
        raise ArchiveNotKept
    target = _make_folder(run_id) / ARCHIVE
    try:
        os.replace(run_folder(check.pk) / ARCHIVE, target)
    except FileNotFoundError:
        raise ArchiveNotKept from None
    return target


def put_back_checked_archive(check, run_id):
    """Undo :func:`take_checked_archive` (the import could not be queued)."""
    taken = run_folder(run_id) / ARCHIVE
    if taken.is_file() and run_folder(check.pk).is_dir():
        os.replace(taken, run_folder(check.pk) / ARCHIVE)


def delete_expired_archives(now=None):
    """Delete the folders of finished runs that keep nothing (checks past their days, a stopped
    worker's leftovers), not one without a run row (it may be uncommitted); how many went."""
    root = imports_folder()
    if not root.is_dir():
        return 0
    ids = [int(entry.name) for entry in root.iterdir() if entry.name.isdigit()]
    now = now or timezone.now()
    finished = ImportRun.objects.filter(
        pk__in=ids, state__in=[ImportRun.State.DONE, ImportRun.State.FAILED]
    )
    deleted = 0
    for run in finished.only("pk", "dry_run", "state", "finished_at"):
        if checked_archive(run, now) is None:
            shutil.rmtree(run_folder(run.pk), ignore_errors=True)
            deleted += 1
    return deleted
