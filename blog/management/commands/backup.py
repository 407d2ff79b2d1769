"""``manage.py backup DIR``: an online backup of the database and the media files."""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from blog.ops.backup import BackupError, ManifestError, backup
from blog.ops.backup.postgres import DumpError


class Command(BaseCommand):
    help = (
        "Write a consistent backup while the site serves: a portable JSON dump, the native "
        "copy (SQLite backup API or pg_dump), every media file and a manifest of SHA-256 "
        "hashes, into DIR (new or empty), readable by this account only (folders 700, files "
        "600: the dump holds password hashes)."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, directory, database, **options):
        try:
            manifest = backup(directory, using=database)
        except (BackupError, DumpError, ManifestError, OSError) as error:
            raise CommandError(str(error)) from error
        rows = sum(manifest["rows"].values())
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {rows} rows and {len(manifest['media'])} media files to "
                f"{directory} in {manifest['seconds']} s."
            )
        )
