"""``manage.py import_markdown PATH...``: Hugo, Hexo and Jekyll Markdown into biji."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from blog.porting.formats import FORMATS
from blog.porting.run import import_markdown


class Command(BaseCommand):
    help = (
        "Import Markdown files with YAML or TOML front matter (Hugo, Hexo, Jekyll, or a biji "
        "export) from files or folders. One transaction per file; importing again updates "
        "notes by slug or old URL instead of duplicating them."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="Markdown files or site folders.")
        parser.add_argument(
            "--format", choices=["auto", *FORMATS], default="auto",
            help="Which generator's front-matter keys to read (default: all of them).",
        )  # fmt: skip
        parser.add_argument(
            "--dry-run", action="store_true",
            help="Report what would be created, updated or skipped; write nothing.",
        )  # fmt: skip
        parser.add_argument(
            "--permalink", default="",
            help="The old site's permalink pattern, e.g. /:year/:month/:day/:title/ "
            "(tokens :year :month :day :title :slug): old URLs redirect to the notes.",
        )  # fmt: skip

    def handle(self, *args, paths, **options):
        # The operator's tool: its output (and the logs and docs that quote it) is English
        # whatever LANGUAGE_CODE says; the admin's import speaks its uploader's language.
        with translation.override("en"):
            try:
                report = import_markdown(
                    paths, fmt=options["format"], dry_run=options["dry_run"],
                    permalink=options["permalink"], progress_stream=self.stderr._out,
                )  # fmt: skip
            except FileNotFoundError as error:
                raise CommandError(str(error)) from None
            for line in report.lines():
                self.stdout.write(line)
        if report.errors:
            self.stderr.write(self.style.WARNING(f"{len(report.errors)} files were not imported."))
