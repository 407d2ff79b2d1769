"""Store every note, series, page and the site settings again through the current renderer.

HTML is rendered on save, never per request; after an upgrade that changes the rendering
pipeline, this brings what is stored in line with what a new save would produce.
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
                objects = list(model.objects.all())
                for obj in objects:
                    obj.save()
                counts[model.__name__] = len(objects)
        self.stdout.write("Rendered " + ", ".join(f"{name}: {n}" for name, n in counts.items()))
