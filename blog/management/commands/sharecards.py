"""``manage.py sharecards``: every stale or missing share card drawn, in this process, and files
under ``cards/`` that no card names deleted."""

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError

from blog.images.card_fonts import card_fonts
from blog.images.card_store import FOLDER, CardKeeper, refresh_everything
from blog.models import Note, Series, SiteSettings, Tag


def _walk(folder):
    try:
        folders, files = default_storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in files:
        yield f"{folder}/{name}"
    for sub in folders:
        yield from _walk(f"{folder}/{sub}")


def named_cards():
    names = set(Note.objects.exclude(card="").values_list("card", flat=True))
    for model in (Series, Tag, SiteSettings):
        for pair in model.objects.values_list("card_zh", "card_en"):
            names.update(pair)
    return names - {""}


class Command(BaseCommand):
    help = (
        "Make the share cards that are missing or out of date (notes, series, tags, the home "
        "page) and delete card files nothing names. Safe to run again: a second run finds "
        "nothing to do."
    )

    def handle(self, *args, **options):
        fonts = card_fonts()
        if fonts is None:
            raise CommandError(
                "No font that draws Chinese was found, so no share card can be made: install "
                "Noto Sans CJK (bash scripts/install-fonts.sh) or set BIJI_CARD_FONT."
            )
        keeper = refresh_everything(CardKeeper(fonts))
        named = named_cards()
        orphans = sorted(name for name in _walk(FOLDER) if name not in named)
        for name in orphans:
            default_storage.delete(name)
        if not (keeper.made or keeper.removed or orphans):
            self.stdout.write(f"Share cards up to date ({keeper.kept}): nothing to do.")
            return
        self.stdout.write(
            f"Share cards made: {len(keeper.made)}; up to date: {keeper.kept}; "
            f"removed (drafts, empty series and tags): {keeper.removed}; "
            f"unused files deleted: {len(orphans)}."
        )
