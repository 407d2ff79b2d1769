"""Remote actors and their keys, read through :mod:`.remote` (signed GETs, the SSRF guard).

A key is kept in this process for an hour (at most a few hundred of them), so a follower's
deliveries cost no fetch each; a signature that fails with a kept key is checked once more
with the key fetched again (the remote may have made a new one). An actor read with its key is
kept half a minute for one use, so a Follow reads its follower's actor once."""

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from blog.fediverse.remote import RemoteError, fetch_json, origin_of
from blog.models import Follower
from blog.models.fediverse import URL_LENGTH

HANDLE_LENGTH = Follower._meta.get_field("handle").max_length

KEPT_SECONDS = 3600
KEPT_KEYS = 256


@dataclass(frozen=True)
class RemoteActor:
    id: str
    inbox: str
    shared_inbox: str
    handle: str


@dataclass(frozen=True)
class RemoteKey:
    id: str
    owner: str
    pem: str


def _url(value) -> str:
    """``value`` when it is an http(s) URL of a sensible length, else ""."""
    if isinstance(value, str) and value.startswith(("https://", "http://")):
        if len(value) <= URL_LENGTH and origin_of(value):
            return value
    return ""


def _first_id(value) -> str:
    """An id given as a string or as an object with an ``id``."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) else ""


def fetch_actor(actor_url, *, signer) -> RemoteActor:
    """The actor at ``actor_url`` (its inbox, shared inbox and handle): the one read with its key
    a moment ago when there is one (a Follow's signature, then its follower), else fetched."""
    with _lock:
        read = _actors_read.pop(actor_url, None)
    if read is not None and time.monotonic() - read[0] < ACTOR_READ_SECONDS:
        return read[1]
    return _actor_in(fetch_json(actor_url, signer=signer), actor_url)


def _actor_in(document, actor_url) -> RemoteActor:
    actor_id = _url(document.get("id"))
    if actor_id != actor_url:
        raise RemoteError(f"{actor_url} answered with another actor ({actor_id or 'no id'})")
    inbox = _url(document.get("inbox"))
    if not inbox:
        raise RemoteError(f"{actor_url} has no inbox")
    endpoints = document.get("endpoints")
    shared = _url(endpoints.get("sharedInbox")) if isinstance(endpoints, dict) else ""
    username = document.get("preferredUsername")
    handle = ""
    if isinstance(username, str) and 0 < len(username) <= 100:
        handle = f"{username}@{origin_of(actor_id)}"[:HANDLE_LENGTH]
    return RemoteActor(actor_id, inbox, shared, handle)


def _key_in(document, key_id) -> RemoteKey:
    """The key ``key_id`` as ``document`` (an actor, or the key itself) gives it."""
    document_id = _first_id(document)
    candidates = document.get("publicKey", document if "publicKeyPem" in document else None)
    if isinstance(candidates, dict):
        candidates = [candidates]
    if not isinstance(candidates, list):
        raise RemoteError(f"{key_id}: no public key")
    for candidate in candidates:
        if not isinstance(candidate, dict) or candidate.get("id") != key_id:
            continue
        pem = candidate.get("publicKeyPem")
        owner = _first_id(candidate.get("owner")) or document_id
        if not isinstance(pem, str) or not owner:
            break
        # An actor owns the keys it lists; a key document must name an owner on its own host.
        if "publicKey" in document and owner != document_id:
            raise RemoteError(f"{key_id} belongs to {owner}, not to {document_id}")
        if origin_of(owner) != origin_of(key_id):
            raise RemoteError(f"{key_id} names an owner on another host ({owner})")
        return RemoteKey(key_id, owner, pem)
    raise RemoteError(f"{key_id}: no such public key")


_lock = threading.Lock()
_kept: OrderedDict[str, tuple[float, RemoteKey]] = OrderedDict()
# Actors read with their key (``keyId`` is ``<actor>#main-key``, so one GET gives both), kept
# for the request that verified the key to use once: a Follow's follower costs no second GET.
_actors_read: OrderedDict[str, tuple[float, RemoteActor]] = OrderedDict()
ACTOR_READ_SECONDS = 30


def public_key(key_id, *, signer, fresh=False) -> tuple[RemoteKey, bool]:
    """The key ``key_id`` names, and whether it was fetched now (False: kept from before)."""
    if not _url(key_id):
        raise RemoteError(f"not a key URL: {key_id!r}")
    now = time.monotonic()
    if not fresh:
        with _lock:
            kept = _kept.get(key_id)
        if kept is not None and now - kept[0] < KEPT_SECONDS:
            return kept[1], False
    document = fetch_json(key_id, signer=signer)
    key = _key_in(document, key_id)
    try:
        actor = _actor_in(document, key.owner) if "inbox" in document else None
    except RemoteError:
        actor = None
    with _lock:
        _kept[key_id] = (now, key)
        _kept.move_to_end(key_id)
        while len(_kept) > KEPT_KEYS:
            _kept.popitem(last=False)
        if actor is not None:
            _actors_read[actor.id] = (now, actor)
            _actors_read.move_to_end(actor.id)
            while len(_actors_read) > KEPT_KEYS:
                _actors_read.popitem(last=False)
    return key, True


def forget_keys():
    with _lock:
        _kept.clear()
        _actors_read.clear()
