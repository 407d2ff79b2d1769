"""A change's consequences, in one table: each event biji reacts to and what follows, in order, the
content version's first. :func:`connect` walks it; nothing else connects a receiver.

May import: every package of biji (a top layer, below :mod:`blog.apps` only).
"""

from collections.abc import Callable
from dataclasses import dataclass

from anymail.signals import tracking
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_finished, request_started
from django.db.models.signals import (
    m2m_changed,
    post_delete,
    post_migrate,
    post_save,
    pre_delete,
    pre_save,
)
from django.dispatch import Signal
from django_tasks.signals import task_finished

from blog.authoring import term_warnings
from blog.background import term_rerender
from blog.caching import edge, version
from blog.caching import receivers as caching
from blog.fediverse import delivery as fediverse
from blog.images import card_tasks, variant_tasks
from blog.mail import announce, webhooks, websub
from blog.models import (
    Correction,
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Tag,
    TaggedNote,
    Term,
    TermUse,
    events,
    revisions,
)
from blog.porting import tasks as porting_tasks
from blog.search import index as search_index
from blog.search import receivers as search


@dataclass(frozen=True)
class Reaction:
    receiver: Callable
    uid: str  # the dispatch_uid
    consequence: str


@dataclass(frozen=True)
class Event:
    what: str
    signal: Signal
    sender: object  # a model, the app's config, or None: any sender
    reactions: tuple[Reaction, ...]


def on(what, signal, sender, *reactions):
    return Event(what, signal, sender, reactions)


def react(receiver, uid, consequence):
    return Reaction(receiver, uid, consequence)


# One event, then its reactions in order: (the receiver, its dispatch uid, the consequence).
# fmt: off
TABLE = (
    # --- notes --------------------------------------------------------------------------------
    on("a note about to be saved", pre_save, Note,
        react(caching.remember_note_listing, "blog.content.note.note_about_to_change",
              "how the stored note is listed (one query): to tell an edit from a move"),
        react(variant_tasks.remember_new_cover, "blog.images.variant_tasks.cover_about_to_save",
              "whether this save writes a new cover file")),
    on("a note saved (written, published, unpublished, scheduled, linked, placed, carded)",
       post_save, Note,
        react(caching.move_note_parts, "blog.content.note.note_saved",
              "parts: the note's, the sitemap; entering, leaving or moving in lists: the "
              "lists, its tags' and series', the indexes (a pair linked: the site's); a card "
              "stored: the note's alone"),
        react(search.index_note, "blog.search.note_saved",
              "its search document written again after the commit (not for a card)"),
        react(term_warnings.recount_note_pair, "blog.authoring.term_warnings.note_saved",
              "its pair's term warnings counted again at once (text, language, pair)"),
        react(variant_tasks.register_new_cover, "blog.images.variant_tasks.cover_saved",
              "a new cover registered (its size), its variants queued"),
        react(card_tasks.queue_note_cards, "blog.images.card_tasks.note.note_saved",
              "its share card, its series' and tags' queued (what a card shows changed)"),
        react(websub.queue_note_pings, "blog.mail.websub.note_saved",
              "the hub pinged for its feeds (published: now, or at its time to come)"),
        react(fediverse.follow_note_saved, "blog.fediverse.delivery.note_saved",
              "no longer live (draft, scheduled again): its Delete to the followers it was "
              "sent to, after the commit (BIJI_FEDIVERSE)")),
    on("a note deleted", post_delete, Note,
        react(caching.move_every_part, "blog.content.note.everything_changed",
              "parts: the site's (every page)"),
        react(search.unindex_note, "blog.search.note_deleted",
              "its search document removed after the commit"),
        react(card_tasks.delete_note_card, "blog.images.card_tasks.note.note_deleted",
              "its card's file deleted after the commit, its series' cards queued"),
        react(fediverse.follow_note_deleted, "blog.fediverse.delivery.note_deleted",
              "its Delete to the followers it was sent to, after the commit")),
    on("the author saved a note published (the admin's form, its 'publish now')",
       events.published_by_author, Note,
        react(announce.queue_announcement, "blog.mail.announce.published_by_author",
              "a first publication: its email queued with the save, due at its time"),
        react(fediverse.follow_author, "blog.fediverse.delivery.published_by_author",
              "a first publication: its Create queued with the save, due at its time; an "
              "edit: its Update after the commit, if what followers see changed")),
    on("a correction added (an admin save marked as one, an import, the demo)", post_save,
       Correction,
        react(caching.move_corrected_note_parts, "blog.content.correction.correction_saved",
              "parts: its note's (its page, its feed entries, its translation's notice)")),
    on("a correction deleted (a mistaken one, from its note's admin page)", post_delete,
       Correction,
        react(caching.move_corrected_note_parts, "blog.content.correction.correction_deleted",
              "parts: its note's")),
    # --- tags ---------------------------------------------------------------------------------
    on("a note's tags changed (added, removed, cleared)", m2m_changed, Note.tags.through,
        react(caching.move_retagged_parts, "blog.content.tags",
              "parts: the notes', the tags', the tags index, the sitemap (cleared: the site's)"),
        react(search.index_retagged_notes, "blog.search.note_tags_changed",
              "the notes' search documents written again after the commit"),
        react(card_tasks.queue_retagged_cards, "blog.images.card_tasks.tags",
              "the tags' cards queued (their counts)")),
    on("a note given a tag (its tagging row saved)", post_save, TaggedNote,
        react(caching.move_tagging_parts, "blog.content.taggednote.tagging_changed",
              "parts: the note's, the tag's, the tags index, the sitemap"),
        react(card_tasks.queue_tagging_cards, "blog.images.card_tasks.taggednote.tagging_changed",
              "the tag's cards queued"),
        react(websub.queue_tagging_pings, "blog.mail.websub.note_tagged",
              "the hub pinged for the note's feeds, the tag's among them")),
    on("a tagging row deleted (a tag taken off; its note or tag deleted)", post_delete,
       TaggedNote,
        react(caching.move_tagging_parts, "blog.content.taggednote.tagging_changed",
              "parts: the note's, the tag's, the tags index, the sitemap"),
        react(card_tasks.queue_tagging_cards, "blog.images.card_tasks.taggednote.tagging_changed",
              "the tag's cards queued")),
    on("a tag saved (added, renamed)", post_save, Tag,
        react(caching.move_tag_parts, "blog.content.tag.tag_saved",
              "parts: the tag's, the tags index, the sitemap, each note showing its name "
              "(a card stored: the tag's alone)"),
        react(search.index_renamed_tag, "blog.search.tag_saved",
              "its notes' search documents written again (found by its names)"),
        react(card_tasks.queue_tag_cards, "blog.images.card_tasks.tag.tag_saved",
              "its cards queued")),
    on("a tag about to be deleted", pre_delete, Tag,
        react(search.index_notes_of_deleted_tag, "blog.search.tag_deleted",
              "its notes' search documents written again after the commit, without it")),
    on("a tag deleted", post_delete, Tag,
        react(caching.move_deleted_tag_parts, "blog.content.tag.tag_deleted",
              "parts: the tag's, the tags index, the sitemap (its notes': their taggings)"),
        react(card_tasks.delete_card_files, "blog.images.card_tasks.tag.cards_deleted",
              "its cards' files deleted after the commit")),
    # --- series -------------------------------------------------------------------------------
    on("a series saved (added, renamed, described)", post_save, Series,
        react(caching.move_series_parts, "blog.content.series.series_saved",
              "parts: the series', the series index, the sitemap, each note in it (a card "
              "stored: the series' alone)"),
        react(card_tasks.queue_series_cards, "blog.images.card_tasks.series.series_saved",
              "its cards and its notes' queued (they name it)")),
    on("a series about to be deleted", pre_delete, Series,
        react(card_tasks.queue_cards_of_series_notes,
              "blog.images.card_tasks.series.series_about_to_go",
              "its notes' cards queued (they name it)")),
    on("a series deleted", post_delete, Series,
        react(caching.move_every_part, "blog.content.series.everything_changed",
              "parts: the site's (its notes left it without a save)"),
        react(card_tasks.delete_card_files, "blog.images.card_tasks.series.cards_deleted",
              "its cards' files deleted after the commit")),
    # --- pages, the site settings, the navigation ---------------------------------------------
    on("a page saved", post_save, Page,
        react(caching.move_every_part, "blog.content.page.everything_changed",
              "parts: the site's (the frame links pages)")),
    on("a page deleted", post_delete, Page,
        react(caching.move_every_part, "blog.content.page.everything_changed",
              "parts: the site's (the frame links pages)")),
    on("the site settings saved", post_save, SiteSettings,
        react(caching.move_settings_parts, "blog.content.sitesettings.settings_changed",
              "the settings' copy and this process's chrome dropped at once; parts: the "
              "site's (the home page's cards alone: the lists')"),
        react(card_tasks.queue_every_card, "blog.images.card_tasks.sitesettings.settings_saved",
              "every card queued (each names the site)")),
    on("the site settings deleted", post_delete, SiteSettings,
        react(caching.move_settings_parts, "blog.content.sitesettings.settings_changed",
              "the settings' copy and the chrome dropped; parts: the site's"),
        react(card_tasks.delete_card_files, "blog.images.card_tasks.sitesettings.cards_deleted",
              "the home page's cards' files deleted after the commit")),
    on("a navigation link saved", post_save, NavigationLink,
        react(caching.move_settings_parts, "blog.content.navigationlink.settings_changed",
              "the settings' copy and the chrome dropped; parts: the site's")),
    on("a navigation link deleted", post_delete, NavigationLink,
        react(caching.move_settings_parts, "blog.content.navigationlink.settings_changed",
              "the settings' copy and the chrome dropped; parts: the site's")),
    # --- the glossary -------------------------------------------------------------------------
    on("a glossary term about to be saved", pre_save, Term,
        react(term_rerender.remember_stored_term,
              "blog.background.term_rerender.term_about_to_change",
              "the stored term (one query): its old forms and definitions"),
        react(term_warnings.remember_term_forms,
              "blog.authoring.term_warnings.term_about_to_change",
              "the stored term's forms")),
    on("a glossary term saved (added, changed)", post_save, Term,
        react(caching.move_term_parts, "blog.content.term.term_changed",
              "parts: the glossary's, the sitemap"),
        react(term_rerender.queue_rerender_for_term, "blog.background.term_rerender.term_saved",
              "the term matcher forgotten; the notes with its forms, old or new, rendered "
              "again in the background (their saves move their parts)"),
        react(term_warnings.queue_recount_for_term, "blog.authoring.term_warnings.term_saved",
              "every pair's term warnings counted again in the background (forms changed)")),
    on("a glossary term about to be deleted", pre_delete, Term,
        react(term_rerender.queue_rerender_for_deleted_term,
              "blog.background.term_rerender.term_about_to_go",
              "the term matcher forgotten; the notes that used it or hold its forms "
              "rendered again in the background")),
    on("a glossary term deleted", post_delete, Term,
        react(caching.move_term_parts, "blog.content.term.term_changed",
              "parts: the glossary's, the sitemap"),
        react(term_warnings.queue_recount_for_deleted_term,
              "blog.authoring.term_warnings.term_deleted",
              "every pair's term warnings counted again in the background")),
    on("a note's use of a term saved (a note rendered)", post_save, TermUse,
        react(caching.move_term_use_parts, "blog.content.termuse.term_notes_changed",
              "parts: the glossary's (which notes use each term)")),
    on("a note's use of a term deleted", post_delete, TermUse,
        react(caching.move_term_use_parts, "blog.content.termuse.term_notes_changed",
              "parts: the glossary's")),
    on("the notes that explain a term changed", m2m_changed, Term.explained_in.through,
        react(caching.move_term_use_parts, "blog.content.term_explained_in",
              "parts: the glossary's")),
    # --- Django and its libraries -------------------------------------------------------------
    on("migrate or flush ran", post_migrate, apps.get_app_config("blog"),
        react(version.ensure_row_after_migrate, "blog.content.row_after_migrate",
              "the content version's row is there"),
        react(search_index.rebuild_if_incomplete, "blog.search.fill_after_migrate",
              "the search index filled if it lacks notes")),
    on("the content version moved, with the parts a committed change named", version.parts_moved,
       None,
        react(edge.purge_moved_parts, "blog.caching.edge.parts_moved",
              "the edge's copies of the pages showing those parts purged on the background "
              "runner (BIJI_EDGE_PURGER; more than 200 parts: every page)")),
    on("a request started", request_started, None,
        react(version.start_request, "blog.content.request_started",
              "the content version read once for the request"),
        react(edge.purge_after_deploy, "blog.caching.edge.first_request",
              "a process's first request of a release the edge has not seen: every page "
              "purged from the edge, once")),
    on("a request finished", request_finished, None,
        react(version.finish_request, "blog.content.request_finished",
              "the request's memo of the version dropped")),
    on("a background task finished (done, or failed for good)", task_finished, None,
        react(porting_tasks.record_failed_import, "blog.porting.tasks.failed_import",
              "an import whose task failed for good ends its run as failed, with the error")),
    on("a mail provider reported on a message (anymail's webhook)", tracking, None,
        react(webhooks.turn_off_refused_address, "blog.mail.webhooks",
              "a hard bounce, a complaint or an unsubscribe turns its address off")),
)
# fmt: on


def connect():
    """Connect every reaction of :data:`TABLE`, in its order (again: nothing changes)."""
    connected = set()
    for event in TABLE:
        for reaction in event.reactions:
            key = (id(event.signal), id(event.sender), reaction.uid)
            if key in connected:  # Django would drop the second one without a word
                raise ImproperlyConfigured(f"{reaction.uid} is in {event.what!r} twice.")
            connected.add(key)
            event.signal.connect(reaction.receiver, sender=event.sender, dispatch_uid=reaction.uid)
    # django-reversion connects its own receivers as it registers the versioned models: a
    # version of a note, page, tag or term in the open revision follows every row above.
    revisions.register_models()
