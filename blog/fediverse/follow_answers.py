"""Answering a Follow: an ``Accept`` (or ``Reject``) signed by the followed actor and posted to the
follower's inbox on the background runner, retried while the follower's server is away."""

import uuid

from django_tasks import task

from blog.background import Retry
from blog.fediverse.ids import activity_id, actor_id
from blog.fediverse.keys import actor_key
from blog.fediverse.remote import post_json
from blog.models import Follower, FollowerState

ACTIVITY_STREAMS = "https://www.w3.org/ns/activitystreams"
MAX_ATTEMPTS = 6
TIMEOUT = 10  # seconds: an inbox may check the signature (fetching our key) before it answers


def answer(kind, actor_name, follow_id, follower_id) -> dict:
    """The ``Accept``/``Reject`` of the Follow ``follow_id``: the Follow embedded, as Mastodon
    sends it. Its id is the same on every attempt, so a retry is the same activity."""
    me = actor_id(actor_name)
    return {
        "@context": ACTIVITY_STREAMS,
        "id": activity_id(uuid.uuid5(uuid.NAMESPACE_URL, f"{kind} {follow_id}")),
        "type": kind,
        "actor": me,
        "to": [follower_id],
        "object": {"id": follow_id, "type": "Follow", "actor": follower_id, "object": me},
    }


@task(max_attempts=MAX_ATTEMPTS)
def deliver_answer(kind, actor_name, follow_id, follower_id, inbox):
    """Post the ``Accept`` or ``Reject`` of a Follow to ``inbox``. An Accept is sent only while
    the follower is still accepted (an Undo or a block since drops it)."""
    if kind == "Accept":
        still = Follower.objects.filter(
            actor=actor_name,
            remote_actor=follower_id,
            follow_id=follow_id,
            state=FollowerState.ACCEPTED,
        )
        if not still.exists():
            return "no longer following"
    key_id, private_pem, _public = actor_key(actor_name)
    activity = answer(kind, actor_name, follow_id, follower_id)
    response = post_json(inbox, activity, signer=(key_id, private_pem), timeout=TIMEOUT)
    if response.status == 429 or response.status >= 500:
        raise Retry(f"{inbox} answered {response.status}")
    return f"{kind} to {inbox}: {response.status}"


def queue_answer(kind, follower: Follower):
    deliver_answer.enqueue(
        kind, follower.actor, follower.follow_id, follower.remote_actor, follower.inbox
    )
