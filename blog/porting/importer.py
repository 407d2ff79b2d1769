"""Records → the database: one transaction per file, idempotent, reported.

A file is stored whole or not at all (note, tags, series, pair, old paths, images); whatever
fails is reported and the file skipped. The transaction holds only the writes (:mod:`.ahead`
comes before). A record updates the note with its slug or one of its old paths, and leaves it
untouched if nothing changes; ``updated_at`` comes from the file: an import is not an edit.
"""

import logging

import reversion
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from blog.models import Note, Page, Status, revisions
from blog.models.imported import LegacyPath
from blog.models.taxonomy import set_tags
from blog.models.translations import save_note
from blog.porting import ahead, corrections
from blog.porting.authority import Authority, NotPermitted
from blog.porting.glossary_import import GlossaryImport
from blog.porting.limits import MAX_MARKDOWN_BYTES, Deadline
from blog.porting.markdown_import import HUGO_PATH_KEY
from blog.porting.media import MediaStore, is_inline_data, is_remote
from blog.porting.old_paths import OldPaths
from blog.porting.records import NOTE, PAGE
from blog.porting.report import CREATED, SKIPPED, UNCHANGED, UPDATED, shorten
from blog.porting.series_placement import SeriesPlacement
from blog.porting.terms import resolve_tags, store_site_data
from blog.porting.translation_pairing import TranslationPairing
from blog.porting.wording import FAILED, error_text, not_imported, unexpected, worded

logger = logging.getLogger(__name__)

NOTE_FIELDS = (
    "title", "language", "status", "published_at", "body", "summary", "series_id",
    "series_position", "source_title", "source_author", "source_url", "source_date", "translator",
    "coauthors", "cover", "cover_alt", "synced_hashes",
)  # fmt: skip
# What the file gives of a note's own words besides its text, set as given.
GIVEN_FIELDS = (
    "source_title", "source_author", "source_url", "source_date", "translator", "coauthors",
    "cover_alt",
)  # fmt: skip


def record_revision(obj, comment, user=None):
    """Record an import's revision of ``obj`` (a note or page), after its tags are set as the
    admin does; inside the file's transaction, so a rollback (or a dry run) leaves none."""
    revisions.register_models()
    with revisions.recording(user=user, comment=comment, manual=True):
        reversion.add_to_revision(obj)


class Importer(TranslationPairing, SeriesPlacement, OldPaths):
    def __init__(self, report, dry_run=False, permalink_pattern="", user=None, deadline=None):
        self.report = report
        self.deadline = deadline or Deadline()
        # Who imports: None for the command line (the operator's tool), else the admin user
        # whose permissions bound what the import may do.
        self.user = user
        self.authority = Authority(user)
        self.written = set()  # notes this import created or changed (their pks)
        self.dry_run = dry_run
        self.permalink_pattern = permalink_pattern
        self.stores = {}
        self.by_key = {}  # translation key → {language: note id}
        self.records_by_key = {}  # translation key → {language: record}: a pair's own names
        # Series this import created (named as it goes): pk → (the file, the name it gave).
        self.created_series = {}
        self.synced = {}  # note pk → the sync state its file gave (.sync_state)

    def media(self, root):
        if root not in self.stores:
            self.stores[root] = MediaStore(root, self.report, self.dry_run)
        return self.stores[root]

    def run(self, records, site_data=(), progress=None, glossaries=()):
        """Store everything; in a dry run, inside one transaction rolled back at the end."""
        if self.dry_run:
            with transaction.atomic():
                self._run(records, site_data, progress, glossaries)
                transaction.set_rollback(True)
        else:
            self._run(records, site_data, progress, glossaries)
        return self.report

    def _run(self, records, site_data, progress, glossaries=()):
        for data in site_data:
            self._guarded(data.source, None, lambda _ahead, d=data: self.store_site_data(d))
        # The glossary's terms before the notes (they render with the terms marked), the
        # notes that explain them after (they may come with this import).
        terms = GlossaryImport(self.report, self.authority, self.user, self._describe)
        for glossary in glossaries:
            terms.store(glossary)
        # Pages first, then notes in date order: a series' unnumbered parts line up by date.
        latest = timezone.now()
        order = sorted(
            records,
            key=lambda r: (
                r.kind != PAGE,
                r.published_at is None,
                r.published_at or latest,
                r.source,
            ),
        )
        for record in order:
            if self.deadline.passed():
                self.deadline.not_reached(self.report, record.source)
            else:
                store = self.media(record.site_root)
                self._guarded(
                    record.source,
                    store,
                    lambda prepared, r=record, s=store: self.store(r, s, prepared),
                    ahead=lambda r=record, s=store: self.prepare(r, s),
                )
            if progress:
                progress.step(record.source)
        terms.link()
        self.warn_of_one_titled_series()

    def _guarded(self, source, store, work, ahead=lambda: None):
        """``ahead()`` (the slow part) outside any transaction, then ``work(what it gave)``."""
        try:
            prepared = ahead()
            with transaction.atomic():
                if store:
                    store.record()
                work(prepared)
        except Exception as error:
            if store:
                store.discard_created()
            self.report.error(source, not_imported(self._describe(source, error)))
            permitted = not isinstance(error, NotPermitted)
            self.report.add(source, SKIPPED, FAILED if permitted else _("not permitted"))
        else:
            if store:
                store.kept()

    @staticmethod
    def _describe(source, error):
        if isinstance(error, ValidationError):
            return shorten("; ".join(error.messages), 300)
        if isinstance(error, (NotPermitted, DatabaseError, ValueError, OSError)):
            return error_text(error, 300)
        logger.exception("Import: storing %s failed", source)
        return unexpected(error)

    def store_site_data(self, data):
        done = store_site_data(data, self.authority, self.report)
        if done:
            self.report.add(data.source, UPDATED, done)

    # --- notes and pages -----------------------------------------------------------------
    def prepare(self, record, store):
        """Before its transaction: ``record``'s images stored, its text rendered (:mod:`.ahead`)."""
        model = Page if record.kind == PAGE else Note
        stored, slug = self.find(model, record)
        if stored is None:  # before any work: the report says so, not a stored image
            what = _("page %(slug)s") if model is Page else _("note %(slug)s")
            self.authority.check("add", model, worded(what, slug=slug))
        body = self.body(record, store)
        if model is Page:
            prepared = ahead.Prepared(body)
            ahead.page(record, prepared)
            return prepared
        if record.published_at is None and not record.draft and stored is None:
            self.report.warn(record.source, _("no date: published now"))
        cover = self.cover(record, store) if record.cover else ""
        prepared = ahead.Prepared(body, cover)
        partner = self.partner_of(record, stored and stored.pk)
        ahead.note(record, prepared, stored, partner)
        return prepared

    def find(self, model, record):
        """(the note or page ``record`` updates or None, the slug it is stored under)."""
        slug = record.slug
        found = model.objects.filter(slug=slug).first()
        if model is Note and found is not None and found.language != record.language:
            # Two languages of one post share a name (a Hugo bundle's index.md and
            # index.en.md): the second takes a language suffix, as biji's own pairs do.
            slug = f"{record.slug}-{'en' if record.language == 'en' else 'zh'}"
            found = model.objects.filter(slug=slug).first()
        if found is None and record.old_paths:
            legacy = LegacyPath.objects.filter(path__in=record.old_paths).first()
            found = legacy and (legacy.note if model is Note else legacy.page)
        return found, slug

    def existing(self, model, record):
        found, record.slug = self.find(model, record)
        return found

    def store(self, record, store, prepared):
        """Inside the file's transaction: ``record`` with its ``prepared`` text stored."""
        if record.kind == PAGE:
            return self.store_page(record, store, prepared)
        note = self.existing(Note, record)
        created = note is None
        if created:  # an add-only import of a changed note fails at saving
            self.authority.check("add", Note, worded(_("note %(slug)s"), slug=record.slug))
        note = note or Note(slug=record.slug)
        before = None if created else self.snapshot(note)
        note.title, note.language, note.body = record.title, record.language, prepared.body
        note.summary = record.summary
        note.status = Status.DRAFT if record.draft else Status.PUBLISHED
        note.published_at = record.published_at or (None if record.draft else note.published_at)
        for field in GIVEN_FIELDS:
            setattr(note, field, getattr(record, field))
        note.cover = prepared.cover
        # The key the file paired the note by, which the export gives back (not Hugo's paths').
        key = record.translation_key
        note.translation_key = "" if key.startswith(HUGO_PATH_KEY) else key
        if record.synced_hashes is not None:
            note.synced_hashes = record.synced_hashes
        partner = self.partner(note, record)
        self.place_in_series(note, record, partner)
        linked_from_partner = note.pk is not None and partner and partner.translation_id == note.pk
        if partner is not None and not linked_from_partner:
            note.translation = partner
        names, names_zh = self.tag_names(note, record)
        tags = resolve_tags(names, names_zh, self.authority, self.report, record.source)
        paths = self.usable_old_paths(self.old_paths(record), record, note)
        if before is not None and before == self.snapshot(note, tags, partner, paths, record):
            self.report.add(record.source, UNCHANGED, worded(_("note %(slug)s"), slug=note.slug))
            self.remember(note, record)
            return note
        if not created:
            self.authority.check("change", Note, worded(_("note %(slug)s exists"), slug=note.slug))
        note.full_clean(exclude=["translation"] if partner is None else None)
        save_note(note)
        if record.corrections:
            corrections.keep(note, record.corrections)
        self.keep_sync_state(note, record, partner)
        set_tags(note, tags)
        self.keep_old_paths(paths, record, note=note)
        stamp = record.updated_at or record.published_at or timezone.now()
        Note.objects.filter(pk=note.pk).update(updated_at=stamp)
        message = f"Imported from {record.source}"
        record_revision(note, message, user=self.user)
        self.authority.log(note, created, message)
        self.written.add(note.pk)
        self.remember(note, record)
        what = worded(_("note %(slug)s (%(language)s)"), slug=note.slug, language=note.language)
        self.report.add(record.source, CREATED if created else UPDATED, what)
        return note

    def body(self, record, store):
        """The body with its links pointing at stored files; refused over the Markdown file limit
        (a WordPress post with its images stored): rendering it would hold the worker."""
        body = store.rewrite(record.body, record.base_dir, record.file_stem, record.source,
                             record.body_line)  # fmt: skip
        size = len(body.encode())
        if size > MAX_MARKDOWN_BYTES:
            too_large = _("the text is %(size).1f MB: texts over %(limit)d MB are not imported")
            raise ValueError(
                worded(too_large, size=size / 1024 / 1024, limit=MAX_MARKDOWN_BYTES // 1024 // 1024)
            )
        return body

    def snapshot(self, note, tags=None, partner=None, paths=None, record=None):
        """What an import may change, to tell "unchanged" from "updated"."""
        values = {name: getattr(note, name) for name in NOTE_FIELDS}
        values["cover"] = str(values["cover"] or "")
        values["corrections"] = (
            corrections.stored(note)
            if record is None
            else corrections.after_import(note, record.corrections)
        )
        if record is None:  # the note as it is stored
            counterpart = note.counterpart
            return (
                values,
                (
                    sorted(note.tags.values_list("pk", flat=True)),
                    counterpart.pk if counterpart else None,
                    note.updated_at.replace(microsecond=0),
                ),
                set(note.legacy_paths.values_list("path", flat=True)),
            )
        stored_paths = set(note.legacy_paths.values_list("path", flat=True))
        stamp = (record.updated_at or note.updated_at).replace(microsecond=0)
        return (
            values,
            (
                sorted(tag.pk for tag in tags),
                partner.pk if partner else (note.counterpart.pk if note.counterpart else None),
                stamp,
            ),
            stored_paths | set(paths) - {note.get_absolute_url()},
        )

    def cover(self, record, store):
        if is_remote(record.cover) and not is_inline_data(record.cover):
            not_downloaded = _("remote cover not downloaded: %(url)s")
            self.report.warn(
                record.source,
                worded(not_downloaded, url=shorten(record.cover)),
                record.line_of("cover"),
            )
            return ""
        name = store.store(record.cover, record.base_dir, record.file_stem, record.source)
        if name is None:
            not_found = worded(_("cover not found: %(path)s"), path=shorten(record.cover))
            self.report.warn(record.source, not_found, record.line_of("cover"))
            return ""
        return name

    def store_page(self, record, store, prepared):
        page = self.existing(Page, record)
        created = page is None
        if created:
            self.authority.check("add", Page, worded(_("page %(slug)s"), slug=record.slug))
        page = page or Page(slug=record.slug)
        values = {"title": record.title, "language": record.language, "body": prepared.body,
                  "is_published": not record.draft}  # fmt: skip
        paths = self.usable_old_paths(self.old_paths(record), record, page)
        stored_paths = set() if created else set(page.legacy_paths.values_list("path", flat=True))
        if (
            not created
            and all(getattr(page, k) == v for k, v in values.items())
            and (
                record.updated_at is None
                or record.updated_at == page.updated_at.replace(microsecond=0)
            )
            and set(paths) - {page.get_absolute_url()} <= stored_paths
        ):
            self.report.add(record.source, UNCHANGED, worded(_("page %(slug)s"), slug=page.slug))
            return page
        if not created:
            self.authority.check("change", Page, worded(_("page %(slug)s exists"), slug=page.slug))
        for key, value in values.items():
            setattr(page, key, value)
        page.full_clean()
        page.save()
        self.keep_old_paths(paths, record, page=page)
        stamp = record.updated_at or record.published_at or timezone.now()
        Page.objects.filter(pk=page.pk).update(updated_at=stamp)
        message = f"Imported from {record.source}"
        record_revision(page, message, user=self.user)
        self.authority.log(page, created, message)
        what = worded(_("page %(slug)s"), slug=page.slug)
        self.report.add(record.source, CREATED if created else UPDATED, what)
        return page


__all__ = ["NOTE", "PAGE", "Importer", "record_revision"]
