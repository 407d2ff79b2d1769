"""Rebuild the search index from scratch: after bulk imports, ``QuerySet.update()`` on notes,
a restored backup, or if indexing after a save ever failed (it is logged)."""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections

from blog.models.search_document import SearchDocument
from blog.search.index import rebuild


class Command(BaseCommand):
    help = "Empty the search index and index every note again (in one transaction)."

    def add_arguments(self, parser):
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)
        parser.add_argument("--batch-size", type=int, default=500)

    def handle(self, *args, database, batch_size, **options):
        tables = connections[database].introspection.table_names()
        if SearchDocument._meta.db_table not in tables:
            raise CommandError("There is no search index yet: run `manage.py migrate` first.")
        started = time.perf_counter()
        count = rebuild(using=database, batch_size=batch_size)
        self.stdout.write(
            self.style.SUCCESS(f"Indexed {count} notes in {time.perf_counter() - started:.1f} s.")
        )
