"""``manage.py restore DIR``: restore a backup made by ``manage.py backup``."""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS
from django.utils import translation

from blog.ops.backup import ManifestError, RestoreError, restore


class Command(BaseCommand):
    help = (
        "Restore DIR (made by `manage.py backup`) into this database, migrated first, and "
        "the media storage (MEDIA_ROOT or the bucket). Every file's hash, and that every "
        "path stays in its folder, is checked before anything is written. Refuses a database "
        "that already holds content unless --force, which replaces it (accounts here are "
        "kept). Every stored HTML is rendered again from its Markdown. Staff and superuser "
        "accounts of the backup that do not exist here (by user name) are left out unless "
        "--with-accounts. Lists the users with staff or superuser rights after it."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)
        parser.add_argument(
            "--force", action="store_true", help="Replace the content of a non-empty database."
        )
        parser.add_argument(
            "--with-accounts",
            action="store_true",
            help="Also bring in the backup's staff and superuser accounts that do not exist "
            "here, with their passwords and rights: only for a backup you made.",
        )

    def handle(self, *args, directory, database, force, with_accounts, **options):
        # The operator's tool: its output (and the docs that quote it) is English whatever
        # LANGUAGE_CODE says, the renderer's reasons for a refusal included.
        with translation.override("en"):
            try:
                result = restore(
                    directory,
                    using=database,
                    force=force,
                    with_accounts=with_accounts,
                    progress=self._progress if options["verbosity"] else None,
                )
            except (ManifestError, RestoreError, OSError) as error:
                raise CommandError(str(error)) from error
            self._report(result)

    def _progress(self, model, done, total):
        self.stderr.write(f"Rendering {model._meta.verbose_name_plural} again: {done} of {total}")

    def _report(self, result):
        rows = sum(result["rows"].values())
        self.stdout.write(
            self.style.SUCCESS(f"Restored {rows} rows and {result['media']} media files.")
        )
        rendered = ", ".join(_counted(model, n) for model, n in result["rendered"].items())
        self.stdout.write(f"Rendered again from their Markdown: {rendered or 'nothing'}.")
        if refused := result["refused"]:
            texts = (
                "1 text: it shows its"
                if len(refused) == 1
                else f"{len(refused)} texts: each shows its"
            )
            self.stdout.write(
                self.style.WARNING(
                    f"The renderer refused {texts} Markdown as plain text until it is edited "
                    "and saved:"
                )
            )
            for each in refused:
                what = " ".join(filter(None, [str(each.model._meta.verbose_name), each.name]))
                field = f" ({each.field})" if each.field else ""
                self.stdout.write(f"  {what}{field}: {each.reason}")
        accounts = result["accounts"]
        if accounts.kept_here:
            self.stdout.write(
                "Accounts kept as they are here (the backup's copies were not loaded): "
                + ", ".join(accounts.kept_here)
                + "."
            )
        if accounts.left_out:
            names = [
                f"{name} ({'superuser' if superuser else 'staff'})"
                for name, superuser in accounts.left_out
            ]
            self.stdout.write(
                self.style.WARNING(
                    "Left out the backup's accounts with staff or superuser rights that do not "
                    "exist here: " + ", ".join(names) + ". To bring them in, restore again with "
                    "--force --with-accounts (only a backup you made), or create them with "
                    "`manage.py createsuperuser`."
                )
            )
        # Whoever restores a backup sees who can now log in to the admin.
        staff = [
            f"{name} ({'superuser' if superuser else 'staff'})"
            for name, superuser in result["staff"]
        ]
        self.stdout.write(
            "Users with staff or superuser rights now: " + (", ".join(staff) or "none") + "."
        )


def _counted(model, count):
    name = model._meta.verbose_name if count == 1 else model._meta.verbose_name_plural
    return f"{count} {name}"
