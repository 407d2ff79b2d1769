"""Receivers that keep the search index in step with notes and tags, scheduling work for after the
commit (:mod:`.index`), so an aborted transaction leaves the index alone."""

from blog.models import TaggedNote
from blog.search.index import reindex_after_commit, remove_after_commit

# Share cards are saved alone by the background runner; nothing searched is in them.
CARD_FIELDS = frozenset({"card", "card_zh", "card_en"})


def _only_cards(update_fields):
    return update_fields is not None and CARD_FIELDS.issuperset(update_fields)


def index_note(sender, instance, using, update_fields=None, **kwargs):
    if _only_cards(update_fields):
        return
    reindex_after_commit([instance.pk], using)


def unindex_note(sender, instance, using, **kwargs):
    remove_after_commit([instance.pk], using)


def index_retagged_notes(sender, instance, action, reverse, pk_set, using, **kwargs):
    if not reverse:  # note.tags.add/remove/set/clear(): taggit's only direction
        if action in {"post_add", "post_remove", "post_clear"}:
            reindex_after_commit([instance.pk], using)
    elif action in {"post_add", "post_remove"}:  # from a tag's side: pk_set holds note ids
        reindex_after_commit(pk_set or (), using)
    elif action == "pre_clear":  # which notes lose the tag is only known before
        reindex_after_commit(_note_ids(instance, using), using)


def _note_ids(tag, using):
    links = TaggedNote.objects.using(using).filter(tag=tag)
    return links.values_list("content_object_id", flat=True)


def index_renamed_tag(sender, instance, created, using, update_fields=None, **kwargs):
    # Notes are found by their tags' names in both languages; a new tag has no notes yet.
    if not created and not _only_cards(update_fields):
        reindex_after_commit(_note_ids(instance, using), using)


def index_notes_of_deleted_tag(sender, instance, using, **kwargs):
    # After the commit the tag and its links are gone: re-indexing drops its names.
    reindex_after_commit(_note_ids(instance, using), using)
