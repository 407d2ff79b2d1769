"""What a note's followers on the fediverse are sent: its ``Create`` at its first publication by the
author (the moments its email goes: :mod:`blog.models.announcement`; never an import or a restore);
an ``Update`` when the author's edit in the admin changed what they were sent (title, summary,
body, language, tags: not a re-render, an import or a restore from the history); its ``Delete``
when it is taken down in any way (returned to draft, scheduled again, deleted: what readers can no
longer see, followers should not keep), except by a restore's raw saves, which send nothing.

Which actors carry a note: its language's (``zh`` or ``en``) and the site's (``blog``), except
that the site's followers get a translated pair once, as the note of it announced first (its
:class:`~blog.models.FederatedNote` rows say which). Each inbox gets one copy of an activity: a
follower's server's shared inbox once for all its followers, and a server following both actors
that carry a note gets the language actor's (Mastodon keeps the first ``Create`` of an object,
so the same ``Update`` and ``Delete`` must follow it from the same actor).

Delivery: one task per activity and :data:`BATCH` inboxes on the background runner, each POST
signed as the actor that carries the note, through the SSRF guard (:mod:`.remote`), 10 s to
answer. An inbox that is away (a timeout, 5xx, 429) is tried again with backoff, :data:`ATTEMPTS`
runs in all (about 11 hours), then given up; one that answers 410 Gone loses its followers; any
other refusal is logged and dropped.
"""

import logging

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import Q
from django.utils import timezone
from django_tasks import task

from blog.background import Retry
from blog.background.after_commit import once_after_commit
from blog.fediverse import activities
from blog.fediverse.article import fingerprint
from blog.fediverse.ids import actor_names, language_actor
from blog.fediverse.keys import actor_key
from blog.fediverse.remote import Refused, Unavailable, post_json
from blog.models import FederatedNote, Follower, FollowerState, Note
from blog.models.announcement import due_time, is_first_publication, queued_for, still_due

logger = logging.getLogger(__name__)

BATCH = 20  # inboxes per task: at most a few minutes with every one of them slow
TIMEOUT = 10  # seconds to connect, and to answer (an inbox may fetch our key first)
ATTEMPTS = 16  # 10 s, doubled each time, an hour at most between runs: ~11 hours in all


def enabled():
    return settings.BIJI_FEDIVERSE


# --- the author's saves: Create, Update ----------------------------------------------------


def follow_author(sender, note, before, **kwargs):
    """The author saved ``note`` published (:data:`blog.models.events.published_by_author`):
    its Create if this is its first publication, queued with the save and due at its time;
    else, once the save commits (its tags too), an Update if what followers were sent of it
    changed (:func:`follow_change`)."""
    if not enabled():
        return
    if is_first_publication(note, before):
        due = due_time(note.published_at)
        publish_note.using(run_after=due).enqueue(note.pk, queued_for(note))
    else:
        _follow_after_commit(note._state.db, [note.pk])


@task()
def publish_note(note_id, published_at):
    """Send the Create of the note ``note_id`` if it is still what was queued (published at
    ``published_at``, due) and was never sent. Returns the delivery tasks queued."""
    if not enabled():
        return 0
    with transaction.atomic():
        pair = _lock_pair(note_id)
        note = Note.objects.filter(pk=note_id).filter(still_due(published_at)).first()
        if note is None or FederatedNote.objects.filter(note_id=note_id).exists():
            return 0
        site = actor_names()[0]
        carriers = [language_actor(note.language)]
        others = [pk for pk in pair if pk != note_id]
        if not FederatedNote.objects.filter(note_id__in=others, actor=site).exists():
            carriers.append(site)  # the first of a pair announced: the site's followers too
        sent = fingerprint(note)
        FederatedNote.objects.bulk_create(
            FederatedNote(note_id=note_id, actor=actor, fingerprint=sent) for actor in carriers
        )
        return send([(actor, activities.create(note, actor)) for actor in carriers])


def _lock_pair(note_id):
    """Lock the note and its translation, in one order (PostgreSQL), as email does: the two
    notes of a pair announced at once would each find the other not sent to the site's
    followers. Returns their ids."""
    linked = Note.objects.filter(pk=note_id).values_list("translation_id", flat=True).first()
    pair = {note_id, *Note.objects.filter(translation_id=note_id).values_list("pk", flat=True)}
    if linked is not None:
        pair.add(linked)
    list(Note.objects.select_for_update().filter(pk__in=pair).order_by("pk").values("pk"))
    return pair


# --- taken back or deleted: Delete ------------------------------------------------------


def follow_note_saved(sender, instance, raw, using, update_fields=None, **kwargs):
    """A note saved no longer live (returned to draft, scheduled again; not a restore's raw
    save): once the change commits, its followers are sent its Delete if they had it."""
    if raw or not enabled() or instance.is_published():
        return
    if update_fields is None or not {"status", "published_at"}.isdisjoint(update_fields):
        _follow_after_commit(using, [instance.pk])


def follow_note_deleted(sender, instance, using, **kwargs):
    if enabled():
        _follow_after_commit(using, [instance.pk])


def _follow_after_commit(using, note_ids):
    once_after_commit(
        "fediverse changes",
        using or DEFAULT_DB_ALIAS,
        _queue_follow_ups,
        # Never undoes the author's change; the next edit sends what followers missed.
        "Could not queue the fediverse's Update or Delete after a change.",
        note_ids=note_ids,
    )


def _queue_follow_ups(batch):
    """One :func:`follow_change` per note of the transaction that followers were sent (one
    query)."""
    sent = FederatedNote.objects.using(batch.using).filter(note_id__in=batch.items["note_ids"])
    for note_id in sorted(set(sent.values_list("note_id", flat=True))):
        follow_change.enqueue(note_id)


@task()
def follow_change(note_id):
    """Bring the followers' copy of the note ``note_id`` in line with it: a Delete when it is no
    longer published (or gone), an Update when what they were sent changed; nothing for a note
    they were never sent. Returns the delivery tasks queued."""
    if not enabled():
        return 0
    with transaction.atomic():
        rows = list(FederatedNote.objects.select_for_update().filter(note_id=note_id))
        if not rows:
            return 0
        rows.sort(key=lambda row: row.actor == actor_names()[0])  # the site's actor last
        note = Note.objects.filter(pk=note_id).first()
        if note is None or not note.is_published():
            FederatedNote.objects.filter(note_id=note_id).delete()  # never again: a Tombstone
            return send([(row.actor, activities.delete(note_id, row.actor)) for row in rows])
        now = fingerprint(note)
        changed = [row for row in rows if row.fingerprint != now]
        if not changed:
            return 0  # a re-render, a card, a move: nothing they see
        FederatedNote.objects.filter(pk__in=[row.pk for row in changed]).update(
            fingerprint=now, updated_at=timezone.now()
        )
        return send([(row.actor, activities.update(note, row.actor)) for row in changed])


# --- delivering ---------------------------------------------------------------------------


def inboxes_of(actor):
    """Where the accepted followers of ``actor`` take deliveries: each server's shared inbox
    once, or the follower's own."""
    rows = Follower.objects.filter(actor=actor, state=FollowerState.ACCEPTED)
    found = {shared or own for own, shared in rows.values_list("inbox", "shared_inbox")}
    return sorted(found)


def send(sent_by):
    """Queue the delivery of each ``(actor, activity)`` of ``sent_by`` to its actor's followers,
    in order: an inbox that an earlier actor's activity reaches is not sent a later one. Returns
    the tasks queued."""
    reached, queued = set(), 0
    for actor, activity in sent_by:
        inboxes = [inbox for inbox in inboxes_of(actor) if inbox not in reached]
        reached.update(inboxes)
        for start in range(0, len(inboxes), BATCH):
            deliver.enqueue(activity, actor, inboxes[start : start + BATCH])
            queued += 1
    return queued


@task(max_attempts=ATTEMPTS)
def deliver(activity, actor, inboxes):
    """POST ``activity``, signed as ``actor``, to each of ``inboxes``. The inboxes that are away
    are tried again later: by this task's retry when none took it, else by a task of their own
    (the others are not sent it twice). Returns what each inbox answered."""
    key_id, private_pem, _public = actor_key(actor)
    outcomes, away = {}, []
    for inbox in inboxes:
        outcome = _post(inbox, activity, (key_id, private_pem))
        outcomes[inbox] = outcome
        if outcome == "away":
            away.append(inbox)
    if away and len(away) == len(inboxes):
        raise Retry(f"{activity['type']} to {', '.join(away)}: away")
    if away:
        later = timezone.now() + deliver.delay(1)
        deliver.using(run_after=later).enqueue(activity, actor, away)
    return outcomes


def _post(inbox, activity, signer):
    """Deliver to one inbox: "delivered", "away" (try again), "gone" (410: its followers
    removed) or "refused"."""
    try:
        answer = post_json(inbox, activity, signer=signer, timeout=TIMEOUT)
    except Refused as error:
        logger.warning("fediverse: not delivering %s to %s: %s", activity["type"], inbox, error)
        return "refused"
    except Unavailable as error:
        logger.info("fediverse: %s to %s: %s", activity["type"], inbox, error)
        return "away"
    if 200 <= answer.status < 300:
        return "delivered"
    if answer.status == 410:
        gone = Follower.objects.filter(Q(inbox=inbox) | Q(shared_inbox=inbox))
        removed, _ = gone.delete()
        logger.info("fediverse: %s is gone (410): %d followers removed", inbox, removed)
        return "gone"
    if answer.status == 429 or answer.status >= 500:
        logger.info("fediverse: %s to %s: %d", activity["type"], inbox, answer.status)
        return "away"
    logger.warning(
        "fediverse: %s to %s refused (%d): %s",
        activity["type"],
        inbox,
        answer.status,
        answer.body[:200].decode("utf-8", "replace"),
    )
    return "refused"
