"""Render every note, series, page, glossary term and the site settings again through the
current renderer.

HTML is rendered on save, never per request; after an upgrade that changes the rendering
pipeline, this brings what is stored in line with what a new save would produce. Only the
derived fields are written (``render()``): no date moves, no share link is revoked. Each object
renders before its own short transaction, so the site keeps taking writes meanwhile; a text the
renderer refuses (over a bound of blog/rendering/budget.py) keeps its HTML and is listed.
"""

from django.core.management.base import BaseCommand

from blog.background.render_each import render_each
from blog.models import Note, Page, Series, SiteSettings, Term


class Command(BaseCommand):
    help = (
        "Render and store the HTML of every note, series, page, glossary term and the site "
        "settings again."
    )

    def handle(self, *args, **options):
        counts, refused = {}, []
        for model in (Series, Term, Note, Page, SiteSettings):
            counts[model.__name__] = render_each(model.objects.all(), refused=refused)
        self.stdout.write("Rendered " + ", ".join(f"{name}: {n}" for name, n in counts.items()))
        for obj, refusal in refused:
            self.stderr.write(f"Not rendered: {type(obj).__name__} {obj}: {refusal}")
