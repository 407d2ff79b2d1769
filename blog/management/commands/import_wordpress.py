"""``manage.py import_wordpress export.xml``: a WordPress export (WXR) into biji."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from blog.porting.run import import_wordpress


class Command(BaseCommand):
    help = (
        "Import posts and pages from a WordPress export (Tools → Export, a WXR .xml file): "
        "HTML converted to Markdown, categories and tags, drafts, dates, slugs, and featured "
        "images found in the export's media folder. One transaction per post; idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="The WXR file (export.xml).")
        parser.add_argument(
            "--media", default="",
            help="Folder holding the site's wp-content/uploads (default: beside the file).",
        )  # fmt: skip
        parser.add_argument("--dry-run", action="store_true", help="Report only; write nothing.")

    def handle(self, *args, path, **options):
        # The operator's tool: its output (and the logs and docs that quote it) is English
        # whatever LANGUAGE_CODE says; the admin's import speaks its uploader's language.
        with translation.override("en"):
            try:
                report = import_wordpress(
                    path, media=options["media"], dry_run=options["dry_run"],
                    progress_stream=self.stderr._out,
                )  # fmt: skip
            except FileNotFoundError as error:
                raise CommandError(str(error)) from None
            for line in report.lines():
                self.stdout.write(line)
        if report.errors:
            self.stderr.write(self.style.WARNING(f"{len(report.errors)} items were not imported."))
