"""When a note is news: the one rule by which email (:mod:`blog.mail.announce`), the feeds' WebSub
ping (:mod:`blog.mail.websub`) and the fediverse (:mod:`blog.fediverse.delivery`) announce it.

A note is announced once, at its first publication by the author: saved published in the admin,
"publish now", or its scheduled time coming due. Not for an edit of a live note, a note taken
back and published again, a note dated back, an import, a restore or the bulk "Publish" (which
send no :data:`blog.models.events.published_by_author`). Each channel queues its task with the
save, due at the publication time, and the task checks again when it runs that the note is still
published at that time: moved, it is the task of the new time that announces it.

May import: :mod:`blog.models` (notes), :mod:`blog.text`.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from blog.models.notes import Note, Status

# A note published with a time further back than this is not news (see above).
BACKDATED = timedelta(days=1)


@dataclass(frozen=True)
class Publication:
    """A note's publication as it stood before a change."""

    status: str | None = None  # None: the note did not exist
    published_at: datetime | None = None

    def was_live(self, now):
        return (
            self.status == Status.PUBLISHED
            and self.published_at is not None
            and self.published_at <= now
        )


def publication_of(note):
    """The publication of ``note`` as this (unchanged) instance holds it."""
    return Publication(note.status, note.published_at)


def stored_publication(note):
    """The publication of ``note`` as the database holds it (one query; before a form's
    changes are saved)."""
    if note.pk is None:
        return Publication()
    row = Note.objects.filter(pk=note.pk).values_list("status", "published_at").first()
    return Publication(*row) if row else Publication()


def is_first_publication(note, before, now=None):
    """Whether the author's saving ``note`` (saved already) over ``before`` publishes it for the
    first time: now, or at its scheduled time."""
    now = now or timezone.now()
    return (
        note.announced_at is None
        and note.status == Status.PUBLISHED
        and note.published_at is not None
        and not before.was_live(now)
        and note.published_at >= now - BACKDATED
    )


def due_time(published_at, now=None):
    """When the news of a note published at ``published_at`` is due: None for now, else that
    time to come (a task's ``run_after``)."""
    return published_at if published_at > (now or timezone.now()) else None


def queued_for(note):
    """What a channel's task carries to check the note when it runs: its publication time."""
    return note.published_at.isoformat()


def still_due(queued):
    """The condition, on notes, that a task queued for the publication time ``queued`` (as
    :func:`queued_for` gave it) still announces: published, live, and at that very time
    (scheduled again or taken back, the note is not news at ``queued``)."""
    return Q(status=Status.PUBLISHED, published_at=datetime.fromisoformat(queued)) & Q(
        published_at__lte=timezone.now()
    )
