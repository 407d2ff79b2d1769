"""What the site shows the fediverse of itself: its actors' documents (Mastodon's profile fields:
docs.joinmastodon.org/spec/activitypub), WebFinger's answer for ``acct:name@host``
(spec/webfinger) and NodeInfo (nodeinfo.diaspora.software)."""

import mimetypes
from importlib import metadata

from django.conf import settings
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import pgettext

from blog.fediverse import ids
from blog.fediverse.keys import actor_key
from blog.models import Follower, FollowerState, Language, Note, SiteSettings
from blog.text.site_url import absolute_url

CONTEXT = [
    "https://www.w3.org/ns/activitystreams",
    "https://w3id.org/security/v1",
    {
        "manuallyApprovesFollowers": "as:manuallyApprovesFollowers",
        "toot": "http://joinmastodon.org/ns#",
        "discoverable": "toot:discoverable",
        "indexable": "toot:indexable",
        "schema": "http://schema.org#",
        "PropertyValue": "schema:PropertyValue",
        "value": "schema:value",
    },
]
# The language each actor's profile speaks: the site's in the site's default language.
ENDONYMS = {Language.CHINESE: "中文", Language.ENGLISH: "English"}
NODEINFO_SCHEMA = "http://nodeinfo.diaspora.software/ns/schema/{version}"
NODEINFO_VERSIONS = ("2.1", "2.0")


def profile_language(name) -> str:
    return ids.actor_language(name) or settings.LANGUAGE_CODE


def home_url(name) -> str:
    """The home page in the actor's language (the site's: the default language's)."""
    with translation.override(profile_language(name)):
        return absolute_url(reverse("blog:home"))


def _image(card_name):
    if not card_name:
        return None
    media_type = mimetypes.guess_type(card_name)[0] or "image/png"
    url = absolute_url(default_storage.url(card_name))
    return {"type": "Image", "mediaType": media_type, "url": url}


def _summary(site, language) -> str:
    with translation.override(language):
        text = site.description or site.tagline
    return f"<p>{escape(text)}</p>" if text else ""


def actor_document(name, site=None) -> dict:
    """The ``Service`` document of actor ``name`` (Mastodon shows it as an automated account:
    it posts the notes as they are published), with its public key and a link back home."""
    site = site or SiteSettings.load()
    language = profile_language(name)
    key_id, _private, public_pem = actor_key(name)
    me = ids.actor_id(name)
    home = home_url(name)
    title = site.title
    if ids.actor_language(name):
        title = f"{site.title} · {ENDONYMS[language]}"
    card = site.card_en if language == Language.ENGLISH else site.card_zh
    with translation.override(language):
        website = pgettext("fediverse profile field", "Website")
    document = {
        "@context": CONTEXT,
        "id": me,
        "type": "Service",
        "preferredUsername": name,
        "name": title,
        "summary": _summary(site, language),
        "url": home,
        "inbox": ids.inbox_url(name),
        "outbox": ids.outbox_url(name),
        "followers": ids.followers_url(name),
        "endpoints": {"sharedInbox": ids.shared_inbox_url()},
        "manuallyApprovesFollowers": settings.BIJI_FEDIVERSE_MANUAL_APPROVAL,
        "discoverable": True,
        "indexable": True,
        "publicKey": {"id": key_id, "owner": me, "publicKeyPem": public_pem},
        "attachment": [
            {
                "type": "PropertyValue",
                "name": website,
                # rel="me": the site links back (its pages name this actor with rel="me").
                "value": f'<a href="{escape(home)}" rel="me">{escape(home.split("://", 1)[1])}</a>',
            }
        ],
    }
    image = _image(card)
    if image:
        document["icon"] = image
        document["image"] = image
    return document


def actor_notes(name):
    """The published notes actor ``name`` carries."""
    notes = Note.objects.published()
    language = ids.actor_language(name)
    return notes.filter(language=language) if language else notes


def collection(url, total) -> dict:
    """An ``OrderedCollection`` that tells how many, not who or what (as Mastodon shows)."""
    return {
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": url,
        "type": "OrderedCollection",
        "totalItems": total,
    }


def outbox(name) -> dict:
    return collection(ids.outbox_url(name), actor_notes(name).count())


def followers(name) -> dict:
    accepted = Follower.objects.filter(actor=name, state=FollowerState.ACCEPTED)
    return collection(ids.followers_url(name), accepted.count())


def webfinger_name(resource) -> str | None:
    """The actor ``resource`` names (``acct:name@host``, ``name@host`` or the actor's id)."""
    resource = (resource or "").strip()
    for name in ids.actor_names():
        if resource == ids.actor_id(name):
            return name
    if resource.lower().startswith("acct:"):
        resource = resource[5:]
    user, at, host = resource.rpartition("@")
    user = user.lstrip("@").lower()  # Mastodon's user names ignore case
    if at and host.lower() == ids.site_host() and user in ids.actor_names():
        return user
    return None


def webfinger(name) -> dict:
    """The JRD of actor ``name``: its ``self`` link (what Mastodon follows) and its home page."""
    return {
        "subject": f"acct:{ids.handle(name)}",
        "aliases": [ids.actor_id(name), home_url(name)],
        "links": [
            {"rel": "self", "type": ids.ACTIVITY_JSON, "href": ids.actor_id(name)},
            {
                "rel": "http://webfinger.net/rel/profile-page",
                "type": "text/html",
                "href": home_url(name),
            },
        ],
    }


def nodeinfo_links() -> dict:
    return {
        "links": [
            {
                "rel": NODEINFO_SCHEMA.format(version=version),
                "href": absolute_url(f"/nodeinfo/{version}"),
            }
            for version in NODEINFO_VERSIONS
        ]
    }


def _version() -> str:
    try:
        return metadata.version("biji")
    except metadata.PackageNotFoundError:
        return "0"


def nodeinfo(version, site=None) -> dict:
    """The NodeInfo document in ``version`` (2.0 or 2.1): biji, ActivityPub, its actors as users
    and its published notes as posts, closed to registrations."""
    site = site or SiteSettings.load()
    software = {"name": "biji", "version": _version()}
    if version == "2.1":
        software["homepage"] = settings.SITE_URL
    actors = len(ids.actor_names())
    return {
        "version": version,
        "software": software,
        "protocols": ["activitypub"],
        "services": {"inbound": [], "outbound": ["atom1.0", "rss2.0"]},
        "openRegistrations": False,
        "usage": {
            "users": {"total": actors, "activeMonth": actors, "activeHalfyear": actors},
            "localPosts": Note.objects.published().count(),
        },
        "metadata": {"nodeName": site.title},
    }
