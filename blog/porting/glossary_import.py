"""Glossary terms from biji's glossary file (:mod:`.glossary_file`) → the database.

:meth:`GlossaryImport.store` runs before the notes, so they are rendered with the terms marked;
:meth:`GlossaryImport.link` after them, so that notes of the same run are found. Each is one
transaction for the file, each term in a savepoint; a term that would not change is untouched.
"""

from dataclasses import dataclass

import reversion
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from blog.models import Note, Term, revisions
from blog.models.glossary import split_variants
from blog.porting.authority import NotPermitted
from blog.porting.glossary_file import text
from blog.porting.report import CREATED, SKIPPED, UNCHANGED, UPDATED
from blog.porting.wording import FAILED, not_imported, worded

TEXT_FIELDS = ("english", "chinese", "keep_in_english", "definition_en", "definition_zh")
VARIANT_FIELDS = ("english_variants", "chinese_variants")


def what(slug):
    return worded(_("glossary term %(slug)s"), slug=slug)


@dataclass
class _Stored:
    record: object  # the TermRecord
    term: Term
    created: bool
    changed: bool


def differs(term, record):
    """Whether storing ``record`` would change ``term``, compared as the file writes values."""
    stored = {field: getattr(term, field) for field in TEXT_FIELDS}
    stored.update({field: text(stored[field]) for field in ("definition_en", "definition_zh")})
    stored.update({field: split_variants(getattr(term, field)) for field in VARIANT_FIELDS})
    return any(getattr(record, field) != value for field, value in stored.items())


class GlossaryImport:
    def __init__(self, report, authority, user=None, describe=str):
        self.report = report
        self.authority = authority
        self.user = user
        self.describe = describe  # an error → its words in the report (the importer's)
        self.stored = []

    # --- 1. the terms, before the notes --------------------------------------------------
    def store(self, glossary):
        """Each term the file gave (what it could not give was reported as it was read)."""
        with transaction.atomic():
            for record in glossary.terms:
                try:
                    with transaction.atomic():
                        self.stored.append(self._store(record))
                except Exception as error:
                    reason = self.describe(record.source, error)
                    refused = isinstance(error, NotPermitted)  # its words name the term
                    if not refused:
                        reason = worded(_("%(what)s: %(reason)s"), what=what(record.slug),
                                        reason=reason)  # fmt: skip
                    self.report.error(record.source, not_imported(reason), record.line)
                    self.report.add(
                        record.source, SKIPPED, _("not permitted") if refused else FAILED
                    )

    def _store(self, record):
        term = Term.objects.filter(slug=record.slug).first()
        created = term is None
        if created:
            self.authority.check("add", Term, what(record.slug))
            term = Term(slug=record.slug)
        changed = not created and differs(term, record)
        if changed:
            exists = worded(_("glossary term %(slug)s exists"), slug=record.slug)
            self.authority.check("change", Term, exists)
        if created or changed:
            for field in TEXT_FIELDS:
                setattr(term, field, getattr(record, field))
            for field in VARIANT_FIELDS:
                setattr(term, field, "\n".join(getattr(record, field)))
            term.full_clean()
            term.save()
        return _Stored(record, term, created, changed)

    # --- 2. the notes that explain them, after the notes ----------------------------------
    def link(self):
        with transaction.atomic():
            for stored in self.stored:
                try:
                    with transaction.atomic():
                        linked = self._link(stored)
                except Exception as error:
                    record = stored.record
                    not_linked = _("%(what)s: its notes (explained_in) are not linked: %(reason)s")
                    reason = self.describe(record.source, error)
                    self.report.error(
                        record.source,
                        worded(not_linked, what=what(record.slug), reason=reason),
                        record.line,
                    )
                    linked = False
                self._done(stored, linked)

    def _link(self, stored):
        record, term = stored.record, stored.term
        notes = {n.slug: n.pk for n in Note.objects.filter(slug__in=record.explained_in)}
        for slug in record.explained_in:
            if slug not in notes:
                no_note = _("%(what)s: explained_in: no note %(note)s here: not linked")
                self.report.warn(
                    record.source, worded(no_note, what=what(term.slug), note=slug), record.line
                )
        wanted = set(notes.values())
        if wanted == set(term.explained_in.values_list("pk", flat=True)):
            return False
        if not stored.created:
            exists = worded(_("glossary term %(slug)s exists"), slug=term.slug)
            self.authority.check("change", Term, exists)
        term.explained_in.set(wanted)
        return True

    def _done(self, stored, linked):
        term, source = stored.term, stored.record.source
        if not (stored.created or stored.changed or linked):
            self.report.add(source, UNCHANGED, what(term.slug))
            return
        message = f"Imported from {source}"
        revisions.register_models()
        with revisions.recording(user=self.user, comment=message, manual=True):
            reversion.add_to_revision(term)
        self.authority.log(term, stored.created, message)
        self.report.add(source, CREATED if stored.created else UPDATED, what(term.slug))
