"""One answer of the live site as the file a static host serves: its bytes (the live answer with
the few changes a host without a server needs) and its kind.

Where it is written is :func:`.addresses.file_for`'s (a feed at ``/feed/`` is
``feed/index.html``); its real content type goes to the manifest and ``_headers``.
"""

import html
import re

from django.conf import settings

HTML = "text/html; charset=utf-8"

SUBSCRIBE_SECTION = re.compile(r'\s*<section class="mail-subscribe"[^>]*>.*?</section>', re.S)
SUBSCRIBE_ACTION = re.compile(r'(<form class="mail-subscribe-form"[^>]*\baction=")[^"]*(")')
PREFIXED_ATTRIBUTE = re.compile(r'(\s(?:src|href|srcset|content|poster)=")([^"]*)(")')
ROOT_ASSET = re.compile(r"(^|[\s,])(/(?:static|media)/)")


def subscribe_endpoint():
    return getattr(settings, "BIJI_STATIC_SUBSCRIBE_URL", "") or ""


def kind_of(url, content_type):
    if "rss" in content_type or "atom" in content_type:
        return "feed"
    if url.startswith("/sitemap"):
        return "sitemap"
    if url == "/robots.txt":
        return "robots"
    return "page"


def for_the_folder(site, body, content_type, url):
    """What a static host serves for ``url`` of ``site`` (:class:`.addresses.Site`): the live
    answer with the subscription form pointed at the configured endpoint (or left out), pages
    kept under a query linked by their own paths, and, below a path prefix, the static files
    and media named with it."""
    if not content_type.startswith(("text/html", "application/", "text/xml")):
        return body
    text = body.decode("utf-8")
    if content_type.startswith("text/html"):
        text = without_server_forms(text)
    if "?page=" in text or "?p=" in text:
        text = site.rewrite_query_links(text, url)
    if site.prefix:
        text = with_prefix(text, site.prefix)
    return text.encode("utf-8")


def without_server_forms(text):
    """The subscription form posts to ``BIJI_STATIC_SUBSCRIBE_URL``, or is left out."""
    endpoint = subscribe_endpoint()
    if endpoint:
        return SUBSCRIBE_ACTION.sub(lambda m: m[1] + html.escape(endpoint) + m[2], text)
    return SUBSCRIBE_SECTION.sub("", text)


def with_prefix(text, prefix):
    """Root-relative links to the static files and media, below the site's path prefix."""

    def attribute(match):
        value = ROOT_ASSET.sub(lambda m: m[1] + prefix + m[2], match[2])
        return match[1] + value + match[3]

    return PREFIXED_ATTRIBUTE.sub(attribute, text)
