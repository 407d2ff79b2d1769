"""``manage.py repair_dates``: times stored before biji checked them, brought into range."""

from django.core.management.base import BaseCommand
from django.db import DEFAULT_DB_ALIAS

from blog.models.date_repair import clamp_out_of_range_times


class Command(BaseCommand):
    help = (
        "Move publication and edit times outside 1970-2200 (stored before they were checked: "
        "on PostgreSQL a year-1 date breaks the archive, feeds and the admin's note list) to "
        "the nearest bound, so the author can correct them in the admin."
    )

    def add_arguments(self, parser):
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, database, **options):
        changed = clamp_out_of_range_times(database)
        if not changed:
            self.stdout.write("Every date is in range: nothing to repair.")
            return
        for field, count in changed.items():
            self.stdout.write(f"{field}: {count} moved into 1970-2200")
