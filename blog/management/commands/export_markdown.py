"""``manage.py export_markdown DIR``: every note, page, setting and image as files."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from blog.porting.export import export
from blog.porting.formats import FORMATS


class Command(BaseCommand):
    help = (
        "Export notes and pages as a bilingual site for Hugo (the default), Jekyll with "
        "jekyll-polyglot, or Hexo: Markdown with front matter, the generator's configuration, "
        "biji's data file (site settings, navigation, series, tags in both languages) and "
        "the media they use. import_markdown reads it back unchanged."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument(
            "--format",
            choices=list(FORMATS),
            default="hugo",
            help="The generator the site is for (docs/moving.md says how to build each).",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help=(
                "Write into a folder that is not empty: the files an earlier export wrote there "
                "for notes, pages and media that no longer exist are removed; other files are "
                "left and listed."
            ),
        )

    def handle(self, *args, directory, **options):
        target = Path(directory)
        if target.exists() and any(target.iterdir()) and not options["force"]:
            raise CommandError(f"{target} is not empty (use --force to write into it anyway).")
        # The operator's tool, English as its docs, whatever LANGUAGE_CODE says.
        with translation.override("en"):
            counts = export(target, FORMATS[options["format"]])
        self.stdout.write(
            self.style.SUCCESS(
                "Exported {notes} notes, {pages} pages, {terms} glossary terms and {media} media "
                "files".format(**counts)
                + f" to {target} ({options['format']})."
            )
        )
        if counts["removed"]:
            self.stdout.write(
                f"Removed {len(counts['removed'])} files of the earlier export that hold notes, "
                "pages or media that no longer exist:"
            )
            for rel in counts["removed"]:
                self.stdout.write(f"  {rel}")
        if counts["own_config"]:
            self.stdout.write(
                self.style.WARNING(
                    "Left the site's own configuration as it is (declare both languages in it as "
                    "docs/moving.md says): " + ", ".join(counts["own_config"])
                )
            )
        if counts["left"]:
            self.stdout.write(
                self.style.WARNING(
                    f"Left in place {len(counts['left'])} Markdown files this export did not "
                    "write (no earlier export's list says they are biji's):"
                )
            )
            for rel in counts["left"]:
                self.stdout.write(f"  {rel}")
