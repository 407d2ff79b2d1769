"""``manage.py load_demo``: load the demo blog from ``blog/ops/demo/``; safe to run again."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from blog.ops.demo.loader import DemoError, database_is_empty, load_demo


class Command(BaseCommand):
    help = (
        "Load the demo blog (series, bilingual tags, notes, pages, site settings, navigation) "
        "from blog/ops/demo/. Idempotent: objects are matched by slug and updated in place."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Load only into a database without notes, pages or series (what `make run` "
            "does): an author's edits and deletions are never undone.",
        )

    def handle(self, *args, **options):
        if options["if_empty"] and not database_is_empty():
            self.stdout.write(
                "The database already has content: the demo is not loaded (your notes, edits "
                "and deletions are kept)."
            )
            return
        try:
            counts = load_demo()
        except (DemoError, ValidationError) as error:
            raise CommandError(f"Demo content is malformed: {error}") from error
        self.stdout.write(
            self.style.SUCCESS(
                "Demo loaded: {notes} notes ({published} published, {drafts} draft, "
                "{scheduled} scheduled), {tags} tags, {series} series, {pages} pages, "
                "{links} navigation links, {terms} glossary terms.".format(**counts)
            )
        )
