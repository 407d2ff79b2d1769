"""``manage.py load_demo``: load the demo blog from ``blog/demo/``; safe to run again."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from blog.demo.loader import DemoError, load_demo


class Command(BaseCommand):
    help = (
        "Load the demo blog (series, bilingual tags, notes, pages, site settings, navigation) "
        "from blog/demo/. Idempotent: objects are matched by slug and updated in place."
    )

    def handle(self, *args, **options):
        try:
            counts = load_demo()
        except (DemoError, ValidationError) as error:
            raise CommandError(f"Demo content is malformed: {error}") from error
        self.stdout.write(
            self.style.SUCCESS(
                "Demo loaded: {notes} notes ({published} published, {drafts} draft, "
                "{scheduled} scheduled), {tags} tags, {series} series, {pages} pages, "
                "{links} navigation links.".format(**counts)
            )
        )
