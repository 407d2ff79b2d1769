"""WebSub: a note saved published pings the hub once per transaction after the commit (a scheduled
one at its time, by the rule every channel announces by: :mod:`blog.models.announcement`), so feed
readers hear of it at once. Without a hub nothing runs.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import logging
from collections import defaultdict

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult

from blog.background.after_commit import once_after_commit
from blog.mail.hub_client import publish
from blog.mail.websub_feeds import feeds_showing
from blog.models import Note, Status
from blog.models.announcement import due_time, still_due

logger = logging.getLogger(__name__)

# What a note's entry shows, and what decides which feeds hold it.
FEED_SHOWS = frozenset(
    {
        "title",
        "slug",
        "body",
        "summary",
        "language",
        "status",
        "published_at",
        "series",
        "series_id",
        "translation",
        "translation_id",
        "synced_hashes",  # the notice of a note behind its translation
    }
)
MAX_ATTEMPTS = 8


def hub():
    return settings.BIJI_WEBSUB_HUB


@task(max_attempts=MAX_ATTEMPTS)
def ping_hub(note_ids, due=None):
    """Tell the hub that every feed showing one of ``note_ids`` changed; ``due``: the publication
    time a deferred ping was queued for. Returns the number of feeds the hub took."""
    if not hub():
        return 0
    if due is not None:  # at a publication time: the notes that are news at it, as announced
        due_now = Note.objects.filter(pk__in=note_ids).filter(still_due(due))
        note_ids = set(due_now.values_list("pk", flat=True))
    urls = feeds_showing(note_ids)
    return publish(hub(), urls) if urls else 0


def queue_pings(note_ids, using=DEFAULT_DB_ALIAS):
    """Queue the pings for ``note_ids``: one task now for the notes published now, one at each
    publication time still to come; none for drafts (one query, and one per time to come)."""
    rows = Note.objects.using(using).filter(pk__in=note_ids, status=Status.PUBLISHED)
    now = timezone.now()
    live, scheduled = [], defaultdict(set)
    for pk, published_at in rows.values_list("pk", "published_at"):
        due = due_time(published_at, now)
        if due is None:
            live.append(pk)
        else:
            scheduled[due].add(pk)
    if live:
        ping_hub.enqueue(sorted(live))
    for published_at, pks in sorted(scheduled.items()):
        pks -= _waiting_at(published_at)
        if pks:
            ping_hub.using(run_after=published_at).enqueue(
                sorted(pks), due=published_at.isoformat()
            )


def _waiting_at(when):
    """The notes a ping queued to run at ``when`` already covers."""
    waiting = DBTaskResult.objects.filter(
        task_path=ping_hub.module_path, status=TaskResultStatus.READY, run_after=when
    )
    covered = set()
    for call in waiting.values_list("args_kwargs", flat=True):
        covered.update(call["args"][0] if call["args"] else call["kwargs"]["note_ids"])
    return covered


def _queue_pings(batch):
    queue_pings(set(batch.items["note_ids"]), batch.using)


def pings_after_commit(using, note_ids):
    """Ping for ``note_ids`` once the current transaction commits (now, outside of one), once
    for all the notes it changed (:mod:`blog.background.after_commit`)."""
    once_after_commit(
        "websub pings",
        using,
        _queue_pings,
        # Never undoes the author's change; readers' next poll finds the note.
        "Could not queue the WebSub ping after a change.",
        note_ids=note_ids,
    )


def ping_hub_for(note, using=None):
    """Tell the hub, after the commit, that the feeds showing ``note`` changed (nothing when
    no hub is configured, or the note is a draft by then)."""
    if hub():
        pings_after_commit(using or note._state.db or DEFAULT_DB_ALIAS, [note.pk])


def queue_note_pings(sender, instance, raw, using, update_fields=None, **kwargs):
    if raw or not hub() or instance.status != Status.PUBLISHED:
        return
    if update_fields is None or not FEED_SHOWS.isdisjoint(update_fields):
        pings_after_commit(using, [instance.pk])


def queue_tagging_pings(sender, instance, raw, using, **kwargs):
    if not raw and hub():
        pings_after_commit(using, [instance.content_object_id])
