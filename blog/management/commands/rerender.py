"""Render every note, series, page and the site settings again through the current renderer.

HTML is rendered on save, never per request; after an upgrade that changes the rendering
pipeline, this brings what is stored in line with what a new save would produce. Only the
derived fields are written (``render()``): no date moves, no share link is revoked.
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from blog.models import Note, Page, Series, SiteSettings


class Command(BaseCommand):
    help = "Render and store the HTML of every note, series, page and the site settings again."

    def handle(self, *args, **options):
        counts = {}
        with transaction.atomic():
            for model in (Series, Note, Page, SiteSettings):
                count = 0
                for obj in model.objects.iterator(chunk_size=500):
                    obj.render()
                    count += 1
                counts[model.__name__] = count
        self.stdout.write("Rendered " + ", ".join(f"{name}: {n}" for name, n in counts.items()))
