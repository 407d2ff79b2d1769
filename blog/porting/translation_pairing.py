"""Pairing imported translations by their translation key, within one import or with a note
already stored, and what the pair's files say of each other (tag names, sync state).
"""

from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from blog.models import Note
from blog.porting.wording import worded


class TranslationPairing:
    """The importer's pairing steps, on its ``report``, ``authority``, ``written``, ``by_key``,
    ``records_by_key`` (key → {language: note id or record}) and ``synced`` (pk → its
    file's)."""

    def tag_names(self, note, record):
        """The names to find the note's tags by, with their Chinese names: ``tags_zh``, else a
        pair's equally long lists by position (``[调度, CUDA]``, ``[Scheduling, CUDA]``)."""
        other = self.records_by_key.get(record.translation_key, {}).get(
            "en" if note.language != "en" else "zh-hans"
        )
        if (
            record.tags_zh
            or other is None
            or other.tags_zh
            or len(other.tags) != len(record.tags)
            or other.tags == record.tags
        ):
            return record.tags, record.tags_zh
        english, chinese = (record, other) if note.language == "en" else (other, record)
        return english.tags, [
            zh if zh != en else "" for en, zh in zip(english.tags, chinese.tags, strict=True)
        ]

    def remember(self, note, record):
        if record.translation_key:
            # The id, not the note: a run of 5,000 files would keep every note's texts.
            self.by_key.setdefault(record.translation_key, {})[note.language] = note.pk
            self.records_by_key.setdefault(record.translation_key, {})[note.language] = record
        if record.synced_hashes is not None:
            self.synced[note.pk] = record.synced_hashes

    def keep_sync_state(self, note, record, partner):
        """After saving ``note``: the sync state its and its partner's files gave, put back,
        since linking the pair puts it in line both ways
        (:func:`blog.models.translation_sync.pair_formed`)."""
        if record.synced_hashes is not None and note.synced_hashes != record.synced_hashes:
            note.synced_hashes = record.synced_hashes
            note.save(update_fields=["synced_hashes"])
        wanted = self.synced.get(partner.pk) if partner is not None else None
        if wanted is not None:
            other = Note.objects.get(pk=partner.pk)
            if other.synced_hashes != wanted:
                other.synced_hashes = wanted
                other.save(update_fields=["synced_hashes"])

    def partner_of(self, record, pk=None):
        """The note the note of ``record`` (``pk``, None when new) is a translation of, by
        the translation key: one this import stored, or one with that slug."""
        key = record.translation_key
        if not key:
            return None
        stored = self.by_key.get(key, {}).get("en" if record.language != "en" else "zh-hans")
        partner = (
            Note.objects.filter(pk=stored).first()
            if stored is not None
            else Note.objects.filter(Q(slug=key) | Q(translation_key=key))
            .exclude(language=record.language)
            .first()
        )
        return None if partner is None or partner.pk == pk else partner

    def partner(self, note, record):
        partner = self.partner_of(record, note.pk)
        if partner is None:
            return None
        already = partner.pk in (note.translation_id, getattr(note.counterpart, "pk", None))
        if not already and partner.pk not in self.written:
            # Linking shows on the other note's page too: a change of that note.
            if not self.authority.allows("change", Note):
                not_linked = _(
                    "not linked to its translation %(slug)s: you may not change notes (needs "
                    "blog.change_note)"
                )
                self.report.warn(record.source, worded(not_linked, slug=partner.slug))
                return None
        return partner
