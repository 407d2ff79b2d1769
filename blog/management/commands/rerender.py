"""Render every note, series, page, glossary term and the site settings again, after an upgrade of
the renderer: derived fields only, so no date moves; refused texts are listed."""

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
