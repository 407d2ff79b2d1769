"""What arrives at an inbox: verified (the signature, its digest and date, against the key its
``keyId`` names, fetched through the SSRF guard), refused from blocked domains and when replayed,
then acted on: ``Follow`` → a follower (and an ``Accept``, unless the author approves by hand),
``Undo`` of a Follow (embedded, as Mastodon sends it, or by id, as bovine does) or of a Like or
Announce, and a ``Like``, ``Announce`` or reply (``Create`` of an object in reply to one of our
notes) recorded for the author as plain text. Activities are read as plain JSON (no JSON-LD)."""

import hashlib
import json
import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from blog.fediverse import ids
from blog.fediverse.blocks import is_blocked
from blog.fediverse.follow_answers import queue_answer
from blog.fediverse.keys import actor_key
from blog.fediverse.remote import Refused, RemoteError, Unavailable, origin_of
from blog.fediverse.remote_actors import fetch_actor, public_key
from blog.fediverse.reply_text import reply_text
from blog.fediverse.signatures import SignatureRejected, key_id_of, verify_request
from blog.models import Follower, FollowerState, Note, Reaction, ReactionKind, SeenActivity
from blog.models.fediverse import URL_LENGTH

logger = logging.getLogger(__name__)

SEEN_FOR = timedelta(days=1)


class Rejected(Exception):
    """An activity refused, with the HTTP status and the reason answered."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status, self.reason = status, reason


def _id(value) -> str:
    """An id given as a string or as an object with an ``id``; "" otherwise."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and len(value) <= URL_LENGTH else ""


def _signer(actor_name):
    key_id, private_pem, _public = actor_key(actor_name)
    return key_id, private_pem


def signer_host(request) -> str:
    """The host whose key signs ``request`` (what its deliveries are counted by), or ""."""
    try:
        return origin_of(key_id_of(request))
    except SignatureRejected:
        return ""


def receive(request, body: bytes, actor_name=None) -> str:
    """Verify and act on the activity ``body`` posted to ``actor_name``'s inbox (None: the shared
    inbox). Returns what was done; raises :class:`Rejected`."""
    try:
        key_id = key_id_of(request)
    except SignatureRejected as error:
        raise Rejected(401, str(error)) from None
    if is_blocked(key_id):
        raise Rejected(403, "this domain is blocked")
    activity = _parse(body)
    signer = _signer(actor_name or ids.actor_names()[0])
    key = _verified_key(request, body, key_id, signer)
    actor = _id(activity.get("actor"))
    if actor != key.owner:
        raise Rejected(401, "the activity's actor is not the key's owner")
    if is_blocked(actor):
        raise Rejected(403, "this domain is blocked")
    activity_id = _id(activity.get("id"))
    if not activity_id:
        raise Rejected(400, "the activity has no id")
    if origin_of(activity_id) != origin_of(actor):
        raise Rejected(403, "the activity's id is not on its actor's host")
    _first_time(activity_id)
    kind = activity.get("type")
    handler = HANDLERS.get(kind if isinstance(kind, str) else "")
    if handler is None:
        return f"ignored {str(kind)[:40]}"
    return handler(activity, actor, actor_name)


def _parse(body) -> dict:
    try:
        activity = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise Rejected(400, "the body is not JSON") from None
    if not isinstance(activity, dict):
        raise Rejected(400, "the body is not a JSON object")
    return activity


def _verified_key(request, body, key_id, signer):
    """The key that signed ``request``, checked; kept keys are fetched again once on failure."""
    fetched = {}

    def fetch(key_id, fresh=False):
        try:
            key, fetched_now = public_key(key_id, signer=signer, fresh=fresh)
        except Refused as error:
            raise Rejected(401, f"the key cannot be fetched: {error}") from None
        except Unavailable as error:
            raise Rejected(503, f"the key cannot be fetched now: {error}") from None
        except RemoteError as error:
            raise Rejected(401, f"no usable key: {error}") from None
        fetched.update(key=key, now=fetched_now)
        return key.pem

    try:
        verify_request(request, fetch, body=body)
    except SignatureRejected as error:
        if not fetched or fetched["now"]:
            raise Rejected(401, str(error)) from None
        try:
            verify_request(request, lambda key_id: fetch(key_id, fresh=True), body=body)
        except SignatureRejected as error:
            raise Rejected(401, str(error)) from None
    return fetched["key"]


def _first_time(activity_id):
    """Record ``activity_id``; :class:`Rejected` (409) when it was taken before."""
    digest = hashlib.sha256(activity_id.encode("utf-8")).hexdigest()
    now = timezone.now()
    try:
        with transaction.atomic():
            SeenActivity.objects.create(digest=digest, seen_at=now)
    except IntegrityError:
        raise Rejected(409, "this activity was received before") from None
    SeenActivity.objects.filter(seen_at__lt=now - SEEN_FOR).delete()


def _our_actor(object_id) -> str | None:
    for name in ids.actor_names():
        if object_id == ids.actor_id(name):
            return name
    return None


def _follow(activity, actor, inbox_actor):
    name = _our_actor(_id(activity.get("object")))
    if name is None or (inbox_actor and name != inbox_actor):
        raise Rejected(400, "the Follow names none of this site's actors")
    try:
        remote = fetch_actor(actor, signer=_signer(name))
    except Unavailable as error:
        raise Rejected(503, f"the follower cannot be fetched now: {error}") from None
    except RemoteError as error:
        raise Rejected(400, f"the follower cannot be read: {error}") from None
    with transaction.atomic():
        follower, created = Follower.objects.select_for_update().get_or_create(
            actor=name,
            remote_actor=actor,
            defaults={
                "state": (
                    FollowerState.PENDING
                    if settings.BIJI_FEDIVERSE_MANUAL_APPROVAL
                    else FollowerState.ACCEPTED
                )
            },
        )
        follower.inbox, follower.shared_inbox = remote.inbox, remote.shared_inbox
        follower.handle, follower.follow_id = remote.handle, _id(activity)
        follower.save()
        if follower.state == FollowerState.ACCEPTED:
            queue_answer("Accept", follower)
    return f"follow of {name}: {follower.state}"


def _undo(activity, actor, inbox_actor):
    undone = activity.get("object")
    undone_id = _id(undone)
    kind = undone.get("type") if isinstance(undone, dict) else None
    if isinstance(undone, dict) and _id(undone.get("actor")) not in ("", actor):
        raise Rejected(403, "an actor may undo only its own activities")
    if not undone_id and kind != "Follow":
        raise Rejected(400, "the Undo names nothing")
    removed = 0
    if kind in (None, "Follow"):
        followers = Follower.objects.filter(remote_actor=actor)
        name = _our_actor(_id(undone.get("object"))) if isinstance(undone, dict) else None
        if name is not None:  # embedded: the Follow of that actor, whatever its id
            removed += followers.filter(actor=name).delete()[0]
        elif undone_id:
            removed += followers.filter(follow_id=undone_id).delete()[0]
    if kind in (None, "Like", "Announce") and undone_id:
        reactions = Reaction.objects.filter(remote_actor=actor, object_id=undone_id)
        removed += reactions.exclude(kind=ReactionKind.REPLY).delete()[0]
    return f"undo: {removed} removed"


def _note(object_id):
    pk = ids.note_pk(object_id)
    if pk is None:
        return None
    return Note.objects.published().filter(pk=pk).only("pk").first()


def _react(kind):
    def record(activity, actor, inbox_actor):
        note = _note(_id(activity.get("object")))
        if note is None:
            return f"{kind}: not one of our notes"
        _, created = Reaction.objects.get_or_create(
            kind=kind,
            object_id=_id(activity),
            defaults={"note": note, "remote_actor": actor},
        )
        return f"{kind} of note {note.pk}" + ("" if created else " (again)")

    return record


def _create(activity, actor, inbox_actor):
    created = activity.get("object")
    if not isinstance(created, dict):
        return "create: no object"
    note = _note(_id(created.get("inReplyTo")))
    if note is None:
        return "create: not a reply to one of our notes"
    reply_id = _id(created)
    if _id(created.get("attributedTo")) != actor or origin_of(reply_id) != origin_of(actor):
        raise Rejected(403, "the reply is not the actor's own")
    url = _id(created.get("url")) if isinstance(created.get("url"), str | dict) else ""
    Reaction.objects.update_or_create(
        kind=ReactionKind.REPLY,
        object_id=reply_id,
        defaults={
            "note": note,
            "remote_actor": actor,
            "url": url if url.startswith(("https://", "http://")) else "",
            "content": reply_text(created.get("content")),
        },
    )
    return f"reply to note {note.pk}"


def _delete(activity, actor, inbox_actor):
    deleted = _id(activity.get("object"))
    if not deleted:
        raise Rejected(400, "the Delete names nothing")
    if deleted == actor:  # the account is gone
        removed = Follower.objects.filter(remote_actor=actor).delete()[0]
        removed += Reaction.objects.filter(remote_actor=actor).delete()[0]
    else:
        replies = Reaction.objects.filter(
            kind=ReactionKind.REPLY, remote_actor=actor, object_id=deleted
        )
        removed = replies.delete()[0]
    return f"delete: {removed} removed"


HANDLERS = {
    "Follow": _follow,
    "Undo": _undo,
    "Like": _react(ReactionKind.LIKE),
    "Announce": _react(ReactionKind.ANNOUNCE),
    "Create": _create,
    "Update": _create,  # an edited reply: its text again
    "Delete": _delete,
}
