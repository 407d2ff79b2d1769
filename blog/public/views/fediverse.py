"""The fediverse's endpoints (docs/fediverse.md): WebFinger, NodeInfo, the actors with their
inboxes, outboxes and followers, the shared inbox, and each published note as an ``Article``.
All 404 while ``BIJI_FEDIVERSE`` is off; every answer is JSON, and bad input a 4xx.

An inbox refuses a body over BIJI_FEDIVERSE_INBOX_MAX_BYTES before reading it (413), counts
the requests of each signing host and of each client address (429 past
BIJI_FEDIVERSE_INBOX_LIMIT in BIJI_FEDIVERSE_INBOX_WINDOW seconds), and hands the rest to
:mod:`blog.fediverse.inbox`, which verifies and acts on it.
"""

import functools
import logging

from django.conf import settings
from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from blog.fediverse import actors, ids, inbox
from blog.fediverse.article import article_document
from blog.models import Note
from blog.public import throttle
from blog.text.client_address import client_network
from blog.text.site_url import absolute_url

logger = logging.getLogger(__name__)

ACTOR_MAX_AGE = 300  # seconds a peer or a proxy may keep an actor or a note's document


def json_answer(document, status=200, content_type=ids.ACTIVITY_JSON):
    return JsonResponse(
        document,
        status=status,
        content_type=f"{content_type}; charset=utf-8",
        json_dumps_params={"ensure_ascii": False},
    )


def error(status, reason):
    return json_answer({"error": reason}, status=status, content_type="application/json")


def turned_on(view):
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if not settings.BIJI_FEDIVERSE:
            raise Http404("The fediverse is off (BIJI_FEDIVERSE).")
        return view(request, *args, **kwargs)

    return wrapped


def posts_only(view):
    """An inbox takes POSTs; anything else is told so in JSON, as every answer here is."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST":
            response = error(405, "an inbox takes POST only")
            response.headers["Allow"] = "POST"
            return response
        return view(request, *args, **kwargs)

    return wrapped


def wants_html(request) -> bool:
    """Not a fediverse server's request: those ask for JSON (``application/activity+json``,
    ``application/ld+json``…); a browser, or Mastodon's check of a ``rel="me"`` link (a HEAD
    with no Accept), is sent to the page instead."""
    return "json" not in request.headers.get("Accept", "").lower()


def public(response, max_age=ACTOR_MAX_AGE):
    patch_cache_control(response, public=True, max_age=max_age)
    patch_vary_headers(response, ["Accept"])
    return response


def known_actor(name):
    if name not in ids.actor_names():
        raise Http404("No such actor.")
    return name


@require_safe
@turned_on
def webfinger(request):
    resource = request.GET.get("resource", "")
    if not resource:
        return error(400, "give the account as ?resource=acct:name@host")
    name = actors.webfinger_name(resource)
    if name is None:
        return error(404, "no such account here")
    response = json_answer(actors.webfinger(name), content_type="application/jrd+json")
    response.headers["Access-Control-Allow-Origin"] = "*"
    return public(response)


@require_safe
@turned_on
def nodeinfo_links(request):
    response = json_answer(actors.nodeinfo_links(), content_type="application/json")
    response.headers["Access-Control-Allow-Origin"] = "*"
    return public(response)


@require_safe
@turned_on
def nodeinfo(request, version):
    if version not in actors.NODEINFO_VERSIONS:
        raise Http404("No such NodeInfo version.")
    profile = actors.NODEINFO_SCHEMA.format(version=version)
    response = json_answer(
        actors.nodeinfo(version), content_type=f'application/json; profile="{profile}#"'
    )
    response.headers["Access-Control-Allow-Origin"] = "*"
    return public(response)


@require_safe
@turned_on
def actor(request, name):
    """The actor's document to a fediverse server; anything else goes to the home page of its
    language (the redirect back home that Mastodon's rel="me" check looks for)."""
    known_actor(name)
    if wants_html(request):
        return public(HttpResponseRedirect(actors.home_url(name)))
    return public(json_answer(actors.actor_document(name)))


@require_safe
@turned_on
def outbox(request, name):
    return public(json_answer(actors.outbox(known_actor(name))))


@require_safe
@turned_on
def followers(request, name):
    return public(json_answer(actors.followers(known_actor(name))))


@require_safe
@turned_on
def note(request, pk):
    """A published note's ``Article``; a browser goes to its page. Drafts and unknown: 404."""
    found = Note.objects.published().filter(pk=pk).prefetch_related("tags").first()
    if found is None:
        raise Http404("No published note here.")
    if wants_html(request):
        with translation.override(found.language):
            return public(HttpResponseRedirect(absolute_url(found.get_absolute_url())))
    return public(json_answer(article_document(found)))


@csrf_exempt
@turned_on
@posts_only
def actor_inbox(request, name):
    if name not in ids.actor_names():
        return error(404, "no such actor")
    return receive(request, name)


@csrf_exempt
@turned_on
@posts_only
def shared_inbox(request):
    return receive(request, None)


def receive(request, actor_name):
    limit = settings.BIJI_FEDIVERSE_INBOX_MAX_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return error(400, "bad Content-Length")
    if length > limit:
        return error(413, f"at most {limit} bytes")
    if not _allowed(request):
        response = error(429, "too many requests: try again later")
        response.headers["Retry-After"] = str(settings.BIJI_FEDIVERSE_INBOX_WINDOW)
        return response
    body = request.read(limit + 1)
    if len(body) > limit:
        return error(413, f"at most {limit} bytes")
    try:
        done = inbox.receive(request, body, actor_name)
    except inbox.Rejected as rejected:
        logger.info("Inbox refused (%s): %s", rejected.status, rejected.reason)
        return error(rejected.status, rejected.reason)
    logger.info("Inbox: %s", done)
    return json_answer({"status": "accepted"}, status=202, content_type="application/json")


def _allowed(request) -> bool:
    """Within the limits of the signing host and of the client address."""
    limit, window = settings.BIJI_FEDIVERSE_INBOX_LIMIT, settings.BIJI_FEDIVERSE_INBOX_WINDOW
    host = inbox.signer_host(request)
    by_host = not host or throttle.allow("fediverse-inbox-host", host, limit, window)
    by_client = throttle.allow("fediverse-inbox-client", client_network(request), limit, window)
    return by_host and by_client
