"""An edge cache in front of biji (Varnish, Fastly, Cloudflare): what it may keep, and its purges.

A page the page cache may keep names the parts it shows (:mod:`blog.caching.parts`) in the three
headers edges purge by (:func:`name_parts`). Once a change commits, the content version moves
(:func:`blog.caching.version.bump`) and the parts it moved are purged on the background runner
(:func:`purge_moved_parts`, :func:`purge_edge`) through the purger ``BIJI_EDGE_PURGER`` names,
retried; a purge that keeps failing fails its task (the admin's queue page shows it), and the
edge's ``s-maxage`` bounds how long a page stays stale. A note coming due needs no purge: every
page's ``s-maxage`` ends at the next scheduled publication (:func:`blog.caching.pages.add_policy`).
A new release purges every page once (:func:`purge_after_deploy`).
"""

import hashlib
import logging

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, transaction
from django.utils.cache import patch_cache_control
from django_tasks import task

from blog.background.retrying import RETRY_ON
from blog.caching import parts, purgers, release

logger = logging.getLogger(__name__)

# The headers that name a page's keys: Fastly's, Cloudflare's (comma-separated), Varnish xkey's.
HEADERS = {"Surrogate-Key": " ", "Cache-Tag": ",", "xkey": " "}
# A page whose keys would not fit in this many bytes (a glossary linking thousands of notes) is
# not kept at the edge (its s-maxage is 0): Varnish refuses headers past 8 KB, Fastly and
# Cloudflare past 16 KB.
LONGEST_KEYS = 4000
# A change moving more parts than this (a restore, an import) purges every page: one request
# instead of thousands.
MOST_KEYS_PURGED = 200
# The row (among the parts' versions) naming the release the edge last saw purged.
RELEASE_MARKER = "edge:release"


def enabled():
    return settings.BIJI_EDGE_PURGER != "none"


def key(name):
    return settings.BIJI_EDGE_KEY_PREFIX + name


def name_parts(response, names):
    """Name ``names`` in the edge's headers; a page naming too many is not kept at the edge."""
    keys = sorted(key(name) for name in names)
    if sum(len(k) + 1 for k in keys) > LONGEST_KEYS:
        patch_cache_control(response, s_maxage=0)
        return
    for header, separator in HEADERS.items():
        response.headers[header] = separator.join(keys)


def not_at_the_edge(response):
    """Keep a response that must not outlive this request out of shared caches (rendered across
    an edit: its purge may already have run)."""
    for header in HEADERS:
        if header in response.headers:
            del response.headers[header]
    patch_cache_control(response, s_maxage=0)


# A purge failing after its attempts waits for the edge's s-maxage: tried for ~5 minutes
# (10 s, then twice as long each time), then recorded as failed.
@task(retry_on=(*RETRY_ON, purgers.PurgeFailed), max_attempts=6)
def purge_edge(keys):
    """Purge ``keys`` from the edge; how many were purged."""
    return purgers.configured().purge(keys)


def purge_moved_parts(sender=None, using=DEFAULT_DB_ALIAS, names=(), **kwargs):
    """``parts_moved`` receiver: queue the purge of the pages showing ``names`` (inside the
    transaction open on ``using``, if any: queued with the change, or not at all)."""
    if not enabled() or not names:
        return
    names = sorted(names)
    if len(names) > MOST_KEYS_PURGED:
        names = [parts.SITE]  # every page names the site's part
    purge_edge.enqueue([key(name) for name in names])


def release_number():
    """The release as a part version (a positive 62-bit number)."""
    digest = hashlib.blake2b(release.fingerprint().encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") >> 2) + 1


_release_seen = False  # this process checked the release already


def purge_after_deploy(**kwargs):
    """At a process's first request: if the edge has not been purged since this release
    started, purge every page (the release is in no key an edge sees)."""
    global _release_seen
    if _release_seen or not enabled():
        return
    from blog.models import PartVersion

    number = release_number()
    try:
        with transaction.atomic():
            rows = PartVersion.objects.select_for_update().filter(name=RELEASE_MARKER)
            marker = rows.first()
            if marker is not None and marker.version == number:
                _release_seen = True
                return
            PartVersion.objects.update_or_create(name=RELEASE_MARKER, defaults={"version": number})
            purge_edge.enqueue([key(parts.SITE)])
    except DatabaseError:
        logger.exception("Could not check whether the edge saw this release: tried again.")
        return
    _release_seen = True
    logger.info("A new release (%s): every page purged from the edge.", release.fingerprint())
