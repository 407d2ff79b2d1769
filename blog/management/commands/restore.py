"""``manage.py restore DIR``: restore a backup made by ``manage.py backup``."""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from blog.ops.backup import ManifestError, RestoreError, restore


class Command(BaseCommand):
    help = (
        "Restore DIR (made by `manage.py backup`) into this database, migrated first, and "
        "MEDIA_ROOT. Every file's hash, and that every path stays in its folder, is checked "
        "before anything is written. Refuses a database that already holds content unless "
        "--force, which replaces it. Lists the users with staff or superuser rights after it. "
        "Restore only backups you made: the hashes detect damage, not a hostile backup."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)
        parser.add_argument(
            "--force", action="store_true", help="Replace the content of a non-empty database."
        )

    def handle(self, *args, directory, database, force, **options):
        try:
            result = restore(directory, using=database, force=force)
        except (ManifestError, RestoreError, OSError) as error:
            raise CommandError(str(error)) from error
        rows = sum(result["rows"].values())
        self.stdout.write(
            self.style.SUCCESS(f"Restored {rows} rows and {result['media']} media files.")
        )
        # A backup can carry accounts: whoever restores it sees who can now log in to the admin.
        staff = [
            f"{name} ({'superuser' if superuser else 'staff'})"
            for name, superuser in result["staff"]
        ]
        self.stdout.write(
            "Users with staff or superuser rights now: " + (", ".join(staff) or "none") + "."
        )
