"""Which URLs of the live site the static copy holds, the file each is written to, and the links
a page names.

A URL here is what Django sees as ``path_info`` (no ``SITE_URL`` path prefix), with its query:
``/notes/x/``, ``/tags/gpu/?page=2``, ``/sitemap-notes.xml?p=2``. A static host ignores the
query, so a page the page cache keeps under a query (a list's page number, a sitemap section's
page) is written at a path of its own, and the links naming it are rewritten
(:func:`static_url`, :func:`rewrite_query_links`): ``/tags/gpu/?page=2`` is
``/tags/gpu/page/2/``, ``/sitemap-notes.xml?p=2`` is ``/sitemap-notes-p2.xml``; no public route
has such a path, so nothing on the live site is shadowed.
"""

import functools
import html
import re
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.urls import Resolver404, get_resolver, get_urlconf
from django.utils import translation
from django.utils.translation import get_language_from_path

from blog.caching import canonical, pages

# Never in the static copy: what needs a server (a search's results are the search helper's own
# page, the subscription's form posts), what one visitor holds (share links, tokens).
LEFT_OUT = {
    "blog:search",
    "blog:subscribe",
    "blog:subscribe-confirm",
    "blog:unsubscribe",
    "blog:note-share",
}
# Public views outside the page cache's namespaces that a static copy still carries.
ALSO_PUBLIC = {"robots-txt"}

LINK = re.compile(r"""(?:href|src)\s*=\s*["']([^"'#]+)""")
LOC = re.compile(r"<loc>\s*([^<\s]+)\s*</loc>")
RSS_LINK = re.compile(r"<link>\s*([^<\s]+)\s*</link>")
# A link carrying a page number (?page=2, a sitemap's ?p=2), in an attribute or an XML element.
QUERY_LINK = re.compile(r"""(?<=["'>])([^"'<>\s]*\?(?:page|p)=[1-9][0-9]{0,8})(?=["'<])""")


def language_of(path):
    return get_language_from_path(path) or settings.LANGUAGE_CODE


def match_of(path):
    """The URL match of ``path`` in its own language (``/en/…`` resolves only in English)."""
    with translation.override(language_of(path)):
        return _match(get_resolver(get_urlconf()), path, translation.get_language())


@functools.lru_cache(maxsize=8192)
def _match(resolver, path, language):
    try:
        return resolver.resolve(path)
    except Resolver404:
        return None


def is_wanted(url):
    """Whether ``url`` is a public page or feed the static copy holds: a public view's canonical
    URL (the path Django reverses, and only a page number for a query), not left out."""
    path, _, query = url.partition("?")
    match = match_of(path)
    if match is None or match.view_name in LEFT_OUT:
        return False
    with translation.override(language_of(path)):
        if match.view_name not in ALSO_PUBLIC and pages.public_view(path) is None:
            return False
        if canonical.canonical_path(match) != _prefixed(path):
            return False
        if query:
            name, equals, value = query.partition("=")
            if not equals or name not in canonical.parameters_of(match):
                return False
            if not canonical.PAGE_NUMBER.fullmatch(value):
                return False
    return True


def _prefixed(path):
    from django.urls import get_script_prefix

    return get_script_prefix().rstrip("/") + path


def static_url(url):
    """The path (below the base URL's) at which the static copy serves ``url``."""
    path, _, query = url.partition("?")
    if not query:
        return path
    number = query.partition("=")[2]
    if path.endswith("/"):
        return f"{path}page/{number}/"
    stem, dot, extension = path.rpartition(".")
    return f"{stem}-p{number}.{extension}" if dot else f"{path}-p{number}"


def file_for(url):
    """The file (relative to the build folder) holding ``url``: ``notes/x/index.html``,
    ``sitemap.xml``; a feed at ``/feed/`` is ``feed/index.html``, the name every folder host
    serves for ``/feed/`` (its real type is in the manifest)."""
    path = static_url(url)
    if path.endswith("/"):
        return path.lstrip("/") + "index.html"
    return path.lstrip("/")


class Site:
    """Where the built site is served: ``base`` (``https://user.github.io/blog``), its path
    prefix (``/blog``, or ``""``)."""

    def __init__(self, base_url):
        self.base = base_url.rstrip("/")
        parts = urlsplit(self.base)
        self.scheme, self.netloc = parts.scheme, parts.netloc
        self.prefix = parts.path.rstrip("/")

    def url_of(self, link, page):
        """``link`` as found on ``page`` (a URL), as a URL of this site, or None when it points
        elsewhere (another host, the static files, another prefix)."""
        link = html.unescape(link.strip())
        if link.startswith(("mailto:", "javascript:", "data:", "tel:")):
            return None
        absolute = urljoin(f"{self.scheme}://{self.netloc}{self.prefixed(page)}", link)
        parts = urlsplit(absolute)
        if (parts.scheme, parts.netloc) != (self.scheme, self.netloc):
            return None
        path = parts.path
        if self.prefix:
            if path != self.prefix and not path.startswith(self.prefix + "/"):
                return None
            path = path[len(self.prefix) :] or "/"
        return path + (f"?{parts.query}" if parts.query else "")

    def prefixed(self, url):
        return self.prefix + url

    def links_in(self, body, page):
        """The URLs of this site ``body`` (a page, feed or sitemap at ``page``) links to."""
        text = body.decode("utf-8", "replace")
        found = LINK.findall(text) + LOC.findall(text) + RSS_LINK.findall(text)
        urls = (self.url_of(link, page) for link in found)
        return {url for url in urls if url is not None}

    def rewrite_query_links(self, text, page):
        """``text`` with the links to pages kept under a query pointing at their own paths, in
        the form they were written (absolute, or from the root when they were relative)."""

        def moved(match):
            written = html.unescape(match[1])
            url = self.url_of(written, page)
            if url is None or "?" not in url or not is_wanted(url):
                return match[1]
            path = self.prefixed(static_url(url))
            if urlsplit(written).scheme:
                return html.escape(f"{self.scheme}://{self.netloc}{path}")
            return html.escape(path)

        return QUERY_LINK.sub(moved, text)
