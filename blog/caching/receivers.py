"""Receivers that move the content version (:mod:`blog.caching.version`) after every change a
reader could see, with the parts it changed (:mod:`blog.caching.parts`: this module decides
what each change empties); :func:`connect` wires them (the app's ``ready()`` calls it).

Each is connected with its sender and only schedules the bump for after the commit (once per
transaction), so an aborted change moves nothing. A note's save first reads how the stored
note is listed (one query), to tell an edit (its own part) from a move between lists. Saving
or deleting the site settings or a navigation link also drops the settings' copy at the
current version at once (:mod:`blog.caching.settings_copy`), and this process's chrome
(:mod:`blog.caching.chrome`).

The glossary is one part (``parts.GLOSSARY``): a term saved or deleted moves it and the
sitemap (which lists each term's page); which notes use a term (``TermUse``) or explain it
(``Term.explained_in``) moves it alone. A term's change moves no note: the notes it concerns
are rendered again in the background (:mod:`blog.background.term_rerender`), and their saves
move their own parts.

``request_started``/``request_finished`` bound the per-request memo of the version.
"""

from django.apps import apps
from django.core.signals import request_finished, request_started
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save, pre_save

from blog.caching import parts, version
from blog.caching.chrome import forget_chrome
from blog.caching.settings_copy import forget_site_settings
from blog.models import (
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Tag,
    TaggedNote,
    Term,
    TermUse,
)

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


def note_about_to_change(sender, instance, raw, using, **kwargs):
    """Remember how the stored note was listed, to compare after the save (one query)."""
    if instance.pk is not None and not raw and not only_cards(kwargs):
        instance._listed_before = (
            Note._base_manager.using(using).filter(pk=instance.pk).values_list(*LISTED_BY).first()
        )


def note_saved(sender, instance, created, using, **kwargs):
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


def note_tags_changed(sender, instance, action, reverse, pk_set, using, **kwargs):
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


def tagging_changed(sender, instance, using, **kwargs):
    note, tag = parts.note(instance.content_object_id), parts.tag(instance.tag_id)
    changed(using, {parts.TAGS, parts.SITEMAP, note, tag})


def named_by_notes(names, notes):
    """``names`` and the part of every note in ``notes``, whose entries show the name."""
    return set(names) | {parts.note(pk) for pk in notes.values_list("pk", flat=True)}


def tag_saved(sender, instance, using, **kwargs):
    if only_cards(kwargs):
        return changed(using, {parts.tag(instance.pk)})
    notes = Note._base_manager.using(using).filter(tags=instance)
    changed(using, named_by_notes({parts.tag(instance.pk), parts.TAGS, parts.SITEMAP}, notes))


def tag_deleted(sender, instance, using, **kwargs):
    # Each of its notes' taggings is deleted first, and says so (tagging_changed).
    changed(using, {parts.tag(instance.pk), parts.TAGS, parts.SITEMAP})


def series_saved(sender, instance, using, **kwargs):
    if only_cards(kwargs):
        return changed(using, {parts.series(instance.pk)})
    notes = Note._base_manager.using(using).filter(series=instance)
    base = {parts.series(instance.pk), parts.SERIES_INDEX, parts.SITEMAP}
    changed(using, named_by_notes(base, notes))


def term_changed(sender, using, **kwargs):
    changed(using, {parts.GLOSSARY, parts.SITEMAP})


def term_notes_changed(sender, using, action="", **kwargs):
    """A note uses a term, or explains it (or no longer does): the glossary's lists."""
    if action in {"", "post_add", "post_remove", "post_clear"}:
        changed(using, {parts.GLOSSARY})


def everything_changed(sender, using, **kwargs):
    """Pages, a deleted note or series (rows changed without signals), anything rare."""
    changed(using, {parts.SITE})


def settings_changed(sender, using, **kwargs):
    if only_cards(kwargs):  # the home page's cards: the home page lists NOTES
        forget_site_settings(using)
        return changed(using, {parts.NOTES})
    forget_site_settings(using)
    forget_chrome()
    changed(using, {parts.SITE})


def connect():
    post_migrate.connect(
        version.ensure_row_after_migrate,
        sender=apps.get_app_config("blog"),
        dispatch_uid="blog.content.row_after_migrate",
    )
    request_started.connect(version.start_request, dispatch_uid="blog.content.request_started")
    request_finished.connect(version.finish_request, dispatch_uid="blog.content.request_finished")
    receivers = [
        (pre_save, Note, note_about_to_change),
        (post_save, Note, note_saved),
        (post_delete, Note, everything_changed),
        (post_save, TaggedNote, tagging_changed),
        (post_delete, TaggedNote, tagging_changed),
        (post_save, Tag, tag_saved),
        (post_delete, Tag, tag_deleted),
        (post_save, Series, series_saved),
        (post_delete, Series, everything_changed),
        (post_save, Page, everything_changed),
        (post_delete, Page, everything_changed),
        (post_save, SiteSettings, settings_changed),
        (post_delete, SiteSettings, settings_changed),
        (post_save, NavigationLink, settings_changed),
        (post_delete, NavigationLink, settings_changed),
        (post_save, Term, term_changed),
        (post_delete, Term, term_changed),
        (post_save, TermUse, term_notes_changed),
        (post_delete, TermUse, term_notes_changed),
    ]
    for signal, model, receiver in receivers:
        signal.connect(
            receiver,
            sender=model,
            dispatch_uid=f"blog.content.{model._meta.model_name}.{receiver.__name__}",
        )
    m2m_changed.connect(
        note_tags_changed, sender=Note.tags.through, dispatch_uid="blog.content.tags"
    )
    m2m_changed.connect(
        term_notes_changed,
        sender=Term.explained_in.through,
        dispatch_uid="blog.content.term_explained_in",
    )
