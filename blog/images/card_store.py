"""What each share card shows, and keeping its file in step with it: the file's name carries the
hash of everything drawn, so :class:`CardKeeper` draws only when that name changes.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import logging
import re
from dataclasses import dataclass, field, replace

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import Q
from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext, pgettext
from PIL import Image

from blog.images.card_fonts import CardFonts
from blog.images.cards import Card, draw
from blog.models import Language, Note, Series, SiteSettings, Status, Tag, TaggedNote

logger = logging.getLogger(__name__)

FOLDER = "cards"
FOLDERS = {"note": "notes", "series": "series", "tag": "tags", "home": "home"}
# The field of each interface language's card, on series, tags and the site settings.
LANGUAGE_FIELDS = {Language.CHINESE: "card_zh", Language.ENGLISH: "card_en"}
SHORT = {Language.CHINESE: "zh", Language.ENGLISH: "en"}
CARD_FIELDS = frozenset({"card", *LANGUAGE_FIELDS.values()})


def _language_label(language):
    with translation.override(language):
        return str(Language(language).label)


def _listed(language, site):
    """The published notes the interface ``language`` lists (the lists' rule), for counts."""
    return Note.objects.published().in_interface(language, others=site.show_other_languages)


def _notes(count):
    return ngettext("%(counter)s note", "%(counter)s notes", count) % {"counter": count}


def _stored_cover(note):
    name = note.cover.name if note.cover else ""
    return name if name and default_storage.exists(name) else ""


def note_card(note, site) -> Card | None:
    """The card of ``note`` (its series loaded), or None for a draft."""
    if note.status != Status.PUBLISHED:
        return None
    with translation.override(note.language):
        kicker = ""
        if note.series_id:
            kicker = note.series.display_name
            if note.series_position:
                kicker = gettext("%(series)s, part %(position)s") % {
                    "series": kicker,
                    "position": note.series_position,
                }
        return Card(
            kind="note",
            language=note.language,
            title=note.title,
            kicker=kicker,
            site=site.title,
            language_label=_language_label(note.language),
            cover=_stored_cover(note),
        )


def series_card(series, language, site) -> Card | None:
    """The card of ``series`` in the interface ``language``; None where no note is listed."""
    with translation.override(language):
        count = _listed(language, site).filter(series=series).count()
        if not count:
            return None
        return Card(
            kind="series",
            language=language,
            title=series.display_name,
            kicker=pgettext("page title", "Series"),
            subtitle=series.other_name,
            detail=_notes(count),
            site=site.title,
            language_label=_language_label(language),
        )


def tag_card(tag, language, site) -> Card | None:
    """The card of ``tag`` in the interface ``language``; None where no note is listed."""
    with translation.override(language):
        count = _listed(language, site).filter(tags=tag).count()
        if not count:
            return None
        return Card(
            kind="tag",
            language=language,
            title=tag.display_name,
            kicker=capfirst(gettext("tag")),
            subtitle=tag.other_name,
            detail=_notes(count),
            site=site.title,
            language_label=_language_label(language),
        )


def home_card(language, site) -> Card:
    """The home page's card in the interface ``language``: the site's title and tagline (no
    count, which every publication would change), and its author."""
    with translation.override(language):
        return Card(
            kind="home",
            language=language,
            title=site.title,
            subtitle=site.tagline,
            site=site.author,
            language_label=_language_label(language),
        )


def _stem(kind: str, language: str, slug: str) -> str:
    """The folder and the start of the name of every file a card has ever had: the note's
    slug; a series' or tag's slug and the interface language; the language (home)."""
    stem = slug if kind == "note" else "-".join(filter(None, (slug, SHORT[language])))
    return f"{FOLDER}/{FOLDERS[kind]}/{stem}"


def storage_name(card: Card, slug: str, fonts: CardFonts) -> str:
    """The file a card is stored in: its name changes with what it shows."""
    stem = _stem(card.kind, card.language, slug)
    return f"{stem}-{card.fingerprint(fonts)}.{card.extension}"


def _earlier_files(stem, keep=""):
    """The files of the card named ``stem`` other than ``keep``: its earlier versions, also
    those whose name a save of an object loaded before the card was made overwrote."""
    folder, _, start = stem.rpartition("/")
    pattern = re.compile(re.escape(start) + r"-[0-9a-f]{12}\.(?:png|jpg)")
    try:
        files = default_storage.listdir(folder)[1]
    except FileNotFoundError:
        return []
    return [f"{folder}/{n}" for n in files if pattern.fullmatch(n) and f"{folder}/{n}" != keep]


def _open_cover(name):
    try:
        with default_storage.open(name) as stored:
            image = Image.open(stored)
            image.load()
            return image
    except (OSError, ValueError, Image.DecompressionBombError):
        logger.warning("Cover %s is missing or unreadable: the card is made without it.", name)
        return None


def _locked(model, pk, using, *related):
    """The row as stored now, locked until the transaction ends, so two workers making one card take
    turns."""
    rows = model.objects.using(using).select_for_update(of=("self",))
    if related:
        rows = rows.select_related(*related)
    return rows.filter(pk=pk).first()


@dataclass
class CardKeeper:
    """Brings cards in line with what they show, counting what it did: one locked transaction per
    object, unused files deleted after the commit."""

    fonts: CardFonts
    using: str = DEFAULT_DB_ALIAS
    made: list = field(default_factory=list)  # the names of the files drawn and stored
    kept: int = 0  # cards already current
    removed: int = 0  # cards of what no longer has one (a note back to draft)

    def note(self, note, site):
        with transaction.atomic(using=self.using):
            note = _locked(Note, note.pk, self.using, "series")
            if note is not None:
                stem = _stem("note", note.language, note.slug)
                self._keep(note, "card", note_card(note, site), note.slug, stem)

    def series(self, series, site):
        with transaction.atomic(using=self.using):
            series = _locked(Series, series.pk, self.using)
            for language, name in LANGUAGE_FIELDS.items() if series else ():
                card = series_card(series, language, site)
                self._keep(series, name, card, series.slug, _stem("series", language, series.slug))

    def tag(self, tag, site):
        with transaction.atomic(using=self.using):
            tag = _locked(Tag, tag.pk, self.using)
            for language, name in LANGUAGE_FIELDS.items() if tag else ():
                card = tag_card(tag, language, site)
                self._keep(tag, name, card, tag.slug, _stem("tag", language, tag.slug))

    def home(self, site):
        with transaction.atomic(using=self.using):
            # No settings saved yet: no row to name the cards in (the admin's first save of
            # the settings, or the demo's, makes them).
            site = _locked(SiteSettings, 1, self.using)
            for language, name in LANGUAGE_FIELDS.items() if site else ():
                self._keep(site, name, home_card(language, site), "", _stem("home", language, ""))

    def _keep(self, obj, name_field, card, slug, stem):
        """Bring the card in ``name_field`` of ``obj`` in line with ``card`` (None: no card),
        deleting every other file of ``stem``."""
        stored = getattr(obj, name_field)
        if card is None:
            unused = {stored, *_earlier_files(stem)} - {""}
            if stored:
                self._store(obj, name_field, "")
            if unused:
                self._delete_after_commit(unused)
                self.removed += 1
            return
        name = storage_name(card, slug, self.fonts)
        if stored == name and default_storage.exists(name):
            self.kept += 1
            return
        if not default_storage.exists(name):  # else drawn by a run killed before naming it
            cover = _open_cover(card.cover) if card.cover else None
            if card.cover and cover is None:
                card = replace(card, cover="")
                name = storage_name(card, slug, self.fonts)
            if not default_storage.exists(name):
                name = default_storage.save(name, ContentFile(draw(card, self.fonts, cover)))
        self.made.append(name)
        if stored != name:
            self._store(obj, name_field, name)
        unused = {stored, *_earlier_files(stem, keep=name)} - {name}
        self._delete_after_commit(unused)

    @staticmethod
    def _store(obj, name_field, name):
        # Only the card's field: what the receivers see as no edit (blog.images.card_tasks),
        # and what moves only the cached pages that show the card (blog.caching.receivers).
        setattr(obj, name_field, name)
        obj.save(update_fields=[name_field])

    def _delete_after_commit(self, names):
        names = sorted({name for name in names if name})
        if names:
            transaction.on_commit(
                lambda: [default_storage.delete(name) for name in names], using=self.using
            )


def refresh_everything(keeper: CardKeeper, using="default"):
    """Every card: published notes (and drafts that still have one), series, tags, the home
    page. What ``manage.py sharecards`` and a change of the site's title do."""
    site = SiteSettings.load(using)
    notes = Note.objects.using(using).select_related("series")
    for note in notes.filter(status=Status.PUBLISHED).order_by("pk").iterator(chunk_size=200):
        keeper.note(note, site)
    for note in notes.exclude(status=Status.PUBLISHED).exclude(card="").order_by("pk"):
        keeper.note(note, site)
    for series in Series.objects.using(using).order_by("pk"):
        keeper.series(series, site)
    for tag in Tag.objects.using(using).order_by("pk"):
        keeper.tag(tag, site)
    keeper.home(site)
    return keeper


def refresh(
    keeper: CardKeeper, *, notes=(), series=(), tags=(), notes_in_series=(), using="default"
):
    """The cards of ``notes`` with their series and tags, of ``series`` and ``tags``, and of every
    note in ``notes_in_series`` (renamed series)."""
    site = SiteSettings.load(using)
    series_ids, tag_ids = set(series), set(tags)
    found = Note.objects.using(using).select_related("series")
    found = found.filter(Q(pk__in=notes) | Q(series_id__in=notes_in_series))
    for note in found.order_by("pk"):
        keeper.note(note, site)
        if note.series_id:
            series_ids.add(note.series_id)
    if notes:
        taggings = TaggedNote.objects.using(using).filter(content_object_id__in=notes)
        tag_ids |= set(taggings.values_list("tag_id", flat=True))
    for each in Series.objects.using(using).filter(pk__in=series_ids).order_by("pk"):
        keeper.series(each, site)
    for tag in Tag.objects.using(using).filter(pk__in=tag_ids).order_by("pk"):
        keeper.tag(tag, site)
    return keeper
