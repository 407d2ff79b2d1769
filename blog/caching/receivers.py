"""The receivers that move the content version after every change a reader could see, with the
parts each change moves. A note's save first reads how the stored note was listed, to tell an
edit (its own part) from a move between lists. A term's change moves no note: the background
renders its notes again, and their saves move their own parts.
"""

from blog.caching import parts, version
from blog.caching.chrome import forget_chrome
from blog.caching.settings_copy import forget_site_settings
from blog.models import Note, TaggedNote

# What decides which lists hold a note, and where: a change of any of these moves the lists
# (parts.NOTES, its tags' and series' lists, the indexes), not only the note's own part.
LISTED_BY = ("status", "published_at", "language", "series_id", "series_position", "translation_id")


def changed(using, names):
    version.bump_after_commit(using, names)


# Share cards (blog.images.cards): saved alone by the background runner. A card shows on its
# own page's meta tags only: storing one moves that page's part and nothing else.
CARD_FIELDS = frozenset({"card", "card_zh", "card_en"})


def only_cards(kwargs):
    fields = kwargs.get("update_fields")
    return fields is not None and CARD_FIELDS.issuperset(fields)


def remember_note_listing(sender, instance, raw, using, **kwargs):
    """Remember how the stored note was listed, to compare after the save."""
    if instance.pk is not None and not raw and not only_cards(kwargs):
        instance._listed_before = (
            Note._base_manager.using(using).filter(pk=instance.pk).values_list(*LISTED_BY).first()
        )


def move_note_parts(sender, instance, created, using, **kwargs):
    if only_cards(kwargs):
        return changed(using, {parts.note(instance.pk)})
    names = {parts.note(instance.pk), parts.SITEMAP}
    before = getattr(instance, "_listed_before", None)
    now = tuple(getattr(instance, field) for field in LISTED_BY)
    instance._listed_before = now
    if created or before != now:
        names |= {parts.NOTES, parts.TAGS, parts.SERIES_INDEX}
        names |= {parts.series(pk) for pk in (now[3], before and before[3]) if pk}
        if before is not None and before[5] != now[5]:
            names.add(parts.SITE)  # a pair linked or unlinked: which entry every list shows
        tags = TaggedNote.objects.using(using).filter(content_object_id=instance.pk)
        names |= {parts.tag(pk) for pk in tags.values_list("tag_id", flat=True)}
    changed(using, names)


def move_corrected_note_parts(sender, instance, using, **kwargs):
    """A correction added or deleted: its note's page and feed entries (its translation's page and
    entry, whose notice may tell it, show the note's part too)."""
    changed(using, {parts.note(instance.note_id)})


def move_retagged_parts(sender, instance, action, reverse, pk_set, using, **kwargs):
    if action not in {"post_add", "post_remove", "post_clear"}:
        return
    if pk_set is None:  # cleared: which tags were there is gone
        changed(using, {parts.SITE})
        return
    note_pks, tag_pks = (pk_set, [instance.pk]) if reverse else ([instance.pk], pk_set)
    changed(
        using,
        {parts.TAGS, parts.SITEMAP}
        | {parts.note(pk) for pk in note_pks}
        | {parts.tag(pk) for pk in tag_pks},
    )


def move_tagging_parts(sender, instance, using, **kwargs):
    note, tag = parts.note(instance.content_object_id), parts.tag(instance.tag_id)
    changed(using, {parts.TAGS, parts.SITEMAP, note, tag})


def named_by_notes(names, notes):
    """``names`` and the part of every note in ``notes``, whose entries show the name."""
    return set(names) | {parts.note(pk) for pk in notes.values_list("pk", flat=True)}


def move_tag_parts(sender, instance, using, **kwargs):
    if only_cards(kwargs):
        return changed(using, {parts.tag(instance.pk)})
    notes = Note._base_manager.using(using).filter(tags=instance)
    changed(using, named_by_notes({parts.tag(instance.pk), parts.TAGS, parts.SITEMAP}, notes))


def move_deleted_tag_parts(sender, instance, using, **kwargs):
    # Each of its notes' taggings is deleted first, and says so (move_tagging_parts).
    changed(using, {parts.tag(instance.pk), parts.TAGS, parts.SITEMAP})


def move_series_parts(sender, instance, using, **kwargs):
    if only_cards(kwargs):
        return changed(using, {parts.series(instance.pk)})
    notes = Note._base_manager.using(using).filter(series=instance)
    base = {parts.series(instance.pk), parts.SERIES_INDEX, parts.SITEMAP}
    changed(using, named_by_notes(base, notes))


def move_term_parts(sender, using, **kwargs):
    changed(using, {parts.GLOSSARY, parts.SITEMAP})


def move_term_use_parts(sender, using, action="", **kwargs):
    """A note uses a term, or explains it (or no longer does): the glossary's lists."""
    if action in {"", "post_add", "post_remove", "post_clear"}:
        changed(using, {parts.GLOSSARY})


def move_every_part(sender, using, **kwargs):
    """Pages, a deleted note or series (rows changed without signals), anything rare."""
    changed(using, {parts.SITE})


def move_settings_parts(sender, using, **kwargs):
    if only_cards(kwargs):  # the home page's cards: the home page lists NOTES
        forget_site_settings(using)
        return changed(using, {parts.NOTES})
    forget_site_settings(using)
    forget_chrome()
    changed(using, {parts.SITE})
