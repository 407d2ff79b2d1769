"""Online backups and restores (docs/operations.md). The manifest's hashes detect damage, not a
hostile backup, so a restore re-renders every HTML and leaves out unknown staff accounts."""

import io
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Q
from django.utils import timezone

from blog.caching import version as content_version
from blog.ops.backup import accounts, dump_reader, files, portable, postgres, rerender, sqlite
from blog.ops.backup.files import ManifestError
from blog.ops.backup.portable import RestoreError
from blog.ops.backup.snapshot import read_snapshot
from blog.search import index as search_index

__all__ = ["BackupError", "ManifestError", "RestoreError", "backup", "restore"]


class BackupError(Exception):
    pass


def _applied_migrations(using):
    recorder = MigrationRecorder(connections[using])
    return sorted(f"{app}.{name}" for app, name in recorder.applied_migrations())


def backup(directory, *, using=DEFAULT_DB_ALIAS, storage=None):
    """Write a backup of the database ``using`` and of the media ``storage`` (the site's own:
    a disk or an object store) into ``directory`` (new or empty). Returns the manifest."""
    directory = Path(directory)
    if directory.exists() and any(directory.iterdir()):
        raise BackupError(f"{directory} is not empty: give a new directory per backup.")
    files.make_private_directory(directory)  # 700 before a byte is written into it
    connection = connections[using]
    started = time.monotonic()
    native = None
    if connection.vendor == "sqlite":
        native = "db.sqlite3"
        sqlite.snapshot_file(using, directory / native)
    elif connection.vendor == "postgresql" and postgres.pg_dump_available():
        native = "db.pgdump"
        postgres.pg_dump(using, directory / native)
    with read_snapshot(using):
        taken_at = timezone.now()
        migrations = _applied_migrations(using)
        with open(directory / "data.json", "w", encoding="utf-8") as stream:
            counts = portable.dump(stream, using)
    media = files.copy_media(storage or default_storage, directory / "media")
    manifest = {
        "format": portable.FORMAT,
        "created_at": taken_at.isoformat(),
        "engine": connection.vendor,
        "native": native,
        "migrations": migrations,
        "rows": counts,
        "media": media,
        "seconds": round(time.monotonic() - started, 3),
    }
    manifest = files.write_manifest(directory, manifest)
    files.make_private(directory)
    return manifest


def restore(
    directory,
    *,
    using=DEFAULT_DB_ALIAS,
    storage=None,
    force=False,
    migrate=True,
    with_accounts=False,
    progress=None,
):
    """Restore a backup into ``using`` (migrated first) and the media ``storage`` (the site's
    own), after checking every hash and path; refuses a database with content unless ``force``.
    Returns what was restored, the accounts' fate, what was re-rendered or refused, and who has
    staff rights now."""
    manifest = files.read_manifest(directory)  # every path and hash checked first
    if manifest.get("format") != portable.FORMAT:
        raise RestoreError(f"Not a biji backup format: {manifest.get('format')!r}")
    storage = storage or default_storage
    media_plan = files.plan_media(directory, storage, manifest)
    data_file = files.inside(directory, "data.json")
    if "data.json" not in manifest["files"]:
        raise RestoreError("The backup's data.json is not among its checked files.")
    if migrate:
        call_command("migrate", database=using, interactive=False, verbosity=0)
    newer = set(manifest.get("migrations", [])) - set(_applied_migrations(using))
    if newer:
        raise RestoreError(
            "The backup comes from a newer schema (migrations unknown here: "
            + ", ".join(sorted(newer)[:5])
            + "). Restore with the code that made it."
        )
    present = portable.rows_present(using, ignore=accounts.account_labels())
    if present and not force:
        raise RestoreError(
            "The database is not empty (" + ", ".join(present[:6]) + "): restore into an "
            "empty database, or pass --force to replace its content."
        )
    # The index is rebuilt below, once the transaction commits.
    with transaction.atomic(using=using), search_index.rebuilt_afterwards(using):
        try:
            plan = accounts.admit(data_file, using, with_accounts=with_accounts)
            counts = portable.load(
                data_file, using, plan=plan, replace=bool(present), keep=accounts.account_labels()
            )
        except dump_reader.DumpError as error:  # the transaction takes back what was loaded
            raise RestoreError(
                f"The backup's data.json cannot be read ({error}): nothing was restored."
            ) from error
        try:  # before rendering: pictures look for them
            media = files.restore_media(media_plan, storage)
        except OSError as error:  # the transaction takes back the rows
            raise RestoreError(
                f"The media could not be written ({error}): nothing was restored in the "
                "database; the media files written so far stay."
            ) from error
        rendered, refused = rerender.render_all(using, progress)
    try:
        call_command("rebuild_search_index", database=using, stdout=io.StringIO())
    except Exception as error:  # noqa: BLE001 (the content is back; say what to run)
        raise RestoreError(
            f"Restored, but rebuilding the search index failed ({error}): run "
            "`manage.py rebuild_search_index`."
        ) from error
    finally:
        content_version.bump(using)
    return {
        "rows": counts,
        "media": media,
        "accounts": plan.admitted,
        "rendered": rendered,
        "refused": refused,
        "staff": staff_users(using),
    }


def staff_users(using):
    """(username, is_superuser) of every user who can log in to the admin, by name: what a
    restore brought in, so an account a backup added is seen."""
    model = get_user_model()
    users = model._default_manager.using(using).order_by(model.USERNAME_FIELD)
    privileged = users.filter(Q(is_staff=True) | Q(is_superuser=True))
    return [(user.get_username(), user.is_superuser) for user in privileged]
