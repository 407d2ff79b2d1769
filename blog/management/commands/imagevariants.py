"""``manage.py imagevariants``: every stored image registered, its variants made and the pages
showing it re-rendered, in this process; ``--dry-run`` writes nothing."""

from pathlib import PurePosixPath

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand

from blog.images.variant_tasks import rerender_showing, showing
from blog.images.variants import UNREADABLE, is_variant, make_variants, read_size
from blog.models import ImageFile, ImportedMedia, Note, Page
from blog.models.images import stored_names

FOLDERS = ("uploads", "covers")  # where biji stores images under names of its own
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".gif", ".webp"}  # what uploads.py stores


def _walk(folder):
    try:
        folders, files = default_storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in sorted(files):
        yield f"{folder}/{name}"
    for sub in sorted(folders):
        yield from _walk(f"{folder}/{sub}")


def stored_images():
    """The names of every image biji stores and shows, variants left out (sorted)."""
    names = set()
    for folder in FOLDERS:
        names.update(_walk(folder))
    names.update(ImportedMedia.objects.values_list("name", flat=True))
    names.update(Note.objects.exclude(cover="").values_list("cover", flat=True))
    for model in (Note, Page):
        for html in model.objects.filter(body_html__contains="<img").values_list(
            "body_html", flat=True
        ):
            names.update(stored_names(html))
    return sorted(
        name
        for name in names
        if name
        and not is_variant(name)
        and PurePosixPath(name).suffix.lower() in IMAGE_SUFFIXES
        and default_storage.exists(name)
    )


class Command(BaseCommand):
    help = (
        "Register every stored image that has no size recorded, make the variants (smaller "
        "AVIF and WebP copies) that are missing, and render again the notes and pages that "
        "show them. Safe to run again: a second run finds nothing to do."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Say what would be done; write nothing."
        )

    def handle(self, *args, dry_run=False, **options):
        registered, unreadable, changed, made, complete = [], [], [], 0, 0
        known = set(ImageFile.objects.values_list("name", flat=True))
        rows = list(ImageFile.objects.order_by("name"))
        for name in stored_images():
            if name in known:
                continue
            try:
                width, height = read_size(name)
            except UNREADABLE:
                unreadable.append(name)
                continue
            row = ImageFile(name=name, width=width, height=height)
            if not dry_run:
                row.save()
            registered.append(name)
            rows.append(row)
        for row in rows:
            outcome = make_variants(row, dry_run=dry_run)
            if not outcome.readable:
                unreadable.append(row.name)
                continue
            made += len(outcome.made)
            if outcome.complete and row.name not in registered:
                complete += 1
            else:
                changed.append(row.name)
        if dry_run:
            rendered = sum(len(ids) for _model, ids in showing(changed))
        else:
            rendered = rerender_showing(changed)
        unreadable = sorted(set(unreadable))
        self._say(registered, made, complete, unreadable, rendered, dry_run)
        if not (registered or changed or dry_run):
            self.stdout.write("Nothing was needed.")

    def _say(self, registered, made, complete, unreadable, rendered, dry_run):
        would = "would be " if dry_run else ""
        self.stdout.write(
            f"Images registered: {len(registered)}; variants {would}made: {made}; "
            f"already complete: {complete}; unreadable, skipped: {len(unreadable)}; "
            f"notes and pages {would}rendered again: {rendered}."
        )
        for name in unreadable:
            self.stdout.write(f"  unreadable or missing: {name}")
