"""Signed tokens in subscription emails' links, salted per purpose and address, carrying only the
row's id; confirmations expire, unsubscribe links never do (RFC 8058).

May import: :mod:`blog.models`.
"""

import time
from dataclasses import dataclass

from django.core import signing

from blog.models import Subscriber, Wants

CONFIRM_SALT = "biji.mail.confirm"
UNSUBSCRIBE_SALT = "biji.mail.unsubscribe"
CLOCK_SKEW = 60  # seconds a token's timestamp may be ahead of this server's clock
LONGEST_TOKEN = 300  # characters; longer is not ours, and not worth a query


@dataclass(frozen=True)
class Choice:
    """What an address asked for when it subscribed (row, language, series or tag) and when the link
    was signed, in whole seconds."""

    subscriber: Subscriber
    wants: str
    series_id: int | None = None
    tag_id: int | None = None
    signed_at: int = 0


def _salt(purpose, email):
    return f"{purpose}:{email}"


def _id(text):
    return int(text) if text.isdigit() and len(text) < 19 else None


def confirm_token(subscriber, wants, series_id=None, tag_id=None) -> str:
    """The token of a confirmation link for ``subscriber`` asking for ``wants`` (a
    :class:`~blog.models.Wants` value) and optionally one series or tag."""
    value = f"{subscriber.pk}.{wants}.{series_id or ''}.{tag_id or ''}"
    return signing.TimestampSigner(salt=_salt(CONFIRM_SALT, subscriber.email)).sign(value)


def read_confirm_token(token, max_age) -> Choice | None:
    """The :class:`Choice` a confirmation token was made for, or None when it was tampered
    with, has expired, or its address is gone."""
    if not token or len(token) > LONGEST_TOKEN:
        return None
    value = token.split(":", 1)[0]
    fields = value.split(".")
    if len(fields) != 4 or fields[1] not in Wants.values:
        return None
    pk, wants, series_id, tag_id = _id(fields[0]), fields[1], _id(fields[2]), _id(fields[3])
    subscriber = Subscriber.objects.filter(pk=pk).first() if pk else None
    if subscriber is None:
        return None
    signer = signing.TimestampSigner(salt=_salt(CONFIRM_SALT, subscriber.email))
    try:
        # The signature first: the timestamp is trusted only once it is known to be ours.
        signer.unsign(token, max_age=max_age)
        signed_at = signing.b62_decode(token.split(":")[1])
    except (signing.BadSignature, ValueError, IndexError):
        return None
    if signed_at - time.time() > CLOCK_SKEW:
        return None
    return Choice(subscriber, wants, series_id, tag_id, signed_at)


def unsubscribe_token(subscriber) -> str:
    """The token of ``subscriber``'s unsubscribe link: it never expires."""
    return signing.Signer(salt=_salt(UNSUBSCRIBE_SALT, subscriber.email)).sign(str(subscriber.pk))


def read_unsubscribe_token(token) -> Subscriber | None:
    """The subscriber an unsubscribe token was made for, or None (tampered with, or the
    address deleted or changed since)."""
    if not token or len(token) > LONGEST_TOKEN:
        return None
    pk = _id(token.split(":", 1)[0])
    subscriber = Subscriber.objects.filter(pk=pk).first() if pk else None
    if subscriber is None:
        return None
    try:
        signing.Signer(salt=_salt(UNSUBSCRIBE_SALT, subscriber.email)).unsign(token)
    except signing.BadSignature:
        return None
    return subscriber
