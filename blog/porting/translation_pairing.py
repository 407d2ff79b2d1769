"""Pairing imported translations: by their translation key, within one import or with a note
already stored, and what the pair's files say of each other (tag names, sync state).

A translated note's sync state from its file (:mod:`.sync_state`) is what it has after the
import, though linking its pair puts the pair in line (:meth:`TranslationPairing.keep_sync_state`).
"""

from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from blog.models import Note
from blog.porting.wording import worded


class TranslationPairing:
    """The importer's pairing steps (:class:`.importer.Importer`); they use its ``report``,
    ``authority``, ``written`` (the notes it stored) and what it remembers of each pair:
    ``by_key`` and ``records_by_key`` (translation key → {language: note or record}) and
    ``synced`` (note pk → the sync state its file gave)."""

    def tag_names(self, note, record):
        """The names to find the note's tags by, and their Chinese names beside them.

        biji's ``tags_zh`` says each tag's Chinese name. Without it, the two files of a pair
        whose tag lists are as long name the same tags in their own languages, in the same
        order (Hugo's multilingual sites: ``[调度, CUDA]`` and ``[Scheduling, CUDA]``): each
        position is one tag with both names. Lists of different lengths cannot be paired;
        each name then finds or makes its own tag."""
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
            self.by_key.setdefault(record.translation_key, {})[note.language] = note
            self.records_by_key.setdefault(record.translation_key, {})[note.language] = record
        if record.synced_hashes is not None:
            self.synced[note.pk] = record.synced_hashes

    def keep_sync_state(self, note, record, partner):
        """After saving ``note``: the sync state its file and its partner's file gave, put back.

        Linking a pair puts it in line both ways (:func:`blog.models.translation_sync.pair_formed`),
        which is right for files that say nothing (other generators'), and wrong for an export
        that says which note was behind: the pair is linked when its second note is stored, so
        the first one's state, stored with it, is put back here too.
        """
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
        partner = (
            self.by_key.get(key, {}).get("en" if record.language != "en" else "zh-hans")
            or Note.objects.filter(Q(slug=key) | Q(translation_key=key))
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
