"""The site's ActivityPub addresses, absolute on SITE_URL: one place for every id, so that the
URLconf (config/urls.py), the actors, the signatures and the deliveries agree."""

import re
import uuid
from urllib.parse import urlsplit

from django.conf import settings

from blog.models import Language
from blog.text.site_url import absolute_url

AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
ACTIVITY_JSON = "application/activity+json"
LD_JSON = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'

NOTE_PK = re.compile(r"[0-9]{1,18}")


def site_host() -> str:
    """The host of handles and ids: SITE_URL's, with its port (``localhost:8443``)."""
    return urlsplit(settings.SITE_URL).netloc.lower()


def actor_names() -> list[str]:
    """The site's, the Chinese notes' and the English notes' actor, in that order."""
    return list(settings.BIJI_FEDIVERSE_ACTORS)


def actor_language(name) -> str | None:
    """The language whose notes actor ``name`` carries; None for the site's (every note)."""
    site, chinese, english = actor_names()
    return {chinese: Language.CHINESE, english: Language.ENGLISH}.get(name)


def language_actor(language) -> str:
    """The actor of the notes in ``language`` (the interface's, for the head's links)."""
    _site, chinese, english = actor_names()
    return english if language == Language.ENGLISH else chinese


def actor_id(name) -> str:
    return absolute_url(f"/ap/actors/{name}")


def key_id(name) -> str:
    return actor_id(name) + "#main-key"


def inbox_url(name) -> str:
    return actor_id(name) + "/inbox"


def outbox_url(name) -> str:
    return actor_id(name) + "/outbox"


def followers_url(name) -> str:
    return actor_id(name) + "/followers"


def shared_inbox_url() -> str:
    return absolute_url("/ap/inbox")


def note_id(pk) -> str:
    return absolute_url(f"/ap/notes/{pk}")


def activity_id(name) -> str:
    return absolute_url(f"/ap/activities/{name}")


def new_activity_id() -> str:
    return activity_id(uuid.uuid4())


def handle(name) -> str:
    return f"{name}@{site_host()}"


def note_pk(object_id) -> int | None:
    """The note an id of ours names (``…/ap/notes/<pk>``), else None."""
    if not isinstance(object_id, str):
        return None
    prefix = absolute_url("/ap/notes/")
    rest = object_id[len(prefix) :] if object_id.startswith(prefix) else ""
    return int(rest) if NOTE_PK.fullmatch(rest) else None


def linked_actor(language=None) -> str:
    """The actor id pages and feeds name with ``rel="me"``: the actor of ``language``, or the
    site's with none; "" while the fediverse is off (no page links to a 404)."""
    if not settings.BIJI_FEDIVERSE:
        return ""
    return actor_id(language_actor(language) if language else actor_names()[0])
