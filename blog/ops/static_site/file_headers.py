"""How each file of the built site is served once published: its ``Content-Type`` and
``Cache-Control`` by its kind, and, for an old URL's page, where it redirects.

- The type is the build's manifest's (``.biji-build.json``), or else the file's (Pagefind's
  index is not in the manifest): a feed or sitemap is recognised by its bytes
  (``feed/index.html`` holding RSS is served as RSS), the rest by extension (:data:`TYPES`);
  text says it is UTF-8.
- How long browsers and CDNs may keep it (:func:`cache_control`): the manifest's choice, else
  a name with a hash never changes (a year, immutable), media a month (as the media store's),
  everything else (pages, feeds, the sitemap) briefly.
- The page of an old URL (the manifest's kind ``redirect``) also carries its target, so an S3
  website endpoint answers it with a 301 where other hosts read its refresh
  (:func:`redirect_target`).

May import: :mod:`blog.images`.
"""

import html
import mimetypes
import re
from pathlib import PurePosixPath

from django.conf import settings

from blog.images.object_storage import CACHE_CONTROL as MEDIA_CACHE_CONTROL

SHORT = "public, max-age=60, s-maxage=300"  # pages, feeds, sitemap: new within minutes
IMMUTABLE = "public, max-age=31536000, immutable"  # a name that carries its content's hash
MEDIA = MEDIA_CACHE_CONTROL  # a month, as the media store sends (names never change content)

HTML = "text/html; charset=utf-8"
RSS = "application/rss+xml; charset=utf-8"
ATOM = "application/atom+xml; charset=utf-8"
XML = "application/xml"
OCTETS = "application/octet-stream"
# By extension, before the system's table (which varies between machines).
TYPES = {
    ".html": HTML,
    ".htm": HTML,
    ".xml": XML,
    ".xsl": XML,
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",  # a note's source (index.md)
    ".bib": "application/x-bibtex; charset=utf-8",  # citations (cite.bib, cite.ris)
    ".ris": "application/x-research-info-systems; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".wasm": "application/wasm",
    ".pdf": "application/pdf",
    ".gz": "application/gzip",
    ".br": OCTETS,
}
# Pagefind's index: its chunks and metadata are named by their content's hash
# (pagefind/en/fragment/en_3ee1038.pf_fragment, pagefind/en/pagefind.en_50869bad48.pf_meta);
# pagefind.js and pagefind-entry.json, which name them, are not.
PAGEFIND_CHUNK = re.compile(r"^pagefind/.*_[0-9a-f]{7,}\.pf_[a-z]+$")
# Django's manifest storage: name.<12 hex digits>.ext (and its .gz/.br beside it).
HASHED_STATIC = re.compile(r"\.[0-9a-f]{12}\.[A-Za-z0-9]+(?:\.gz|\.br)?$")
# What a feed or a sitemap starts with, after an XML declaration, processing instructions
# (a stylesheet) and comments.
XML_ROOT = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*(?:(?:<\?[^>]*\?>|<!--.*?-->)\s*)*<(rss|feed|urlset|sitemapindex)\b",
    re.DOTALL,
)
CANONICAL = re.compile(rb'<link rel="canonical" href="([^"]+)"')
ROOT_TYPES = {b"rss": RSS, b"feed": ATOM, b"urlset": XML, b"sitemapindex": XML}


def content_type(name, path, entry=None):
    """The type to serve ``name`` with: the manifest's, a feed's or sitemap's by its bytes (so
    ``feed/index.html`` holding RSS is RSS), else by extension; text says it is UTF-8."""
    return _with_charset(_bare_type(name, path, entry))


def _bare_type(name, path, entry):
    if entry and entry.get("content_type"):
        return entry["content_type"]
    extension = PurePosixPath(name).suffix.lower()
    if extension in ("", ".html", ".htm", ".xml") and (sniffed := _sniffed_type(path)):
        return sniffed
    if extension in TYPES:
        return TYPES[extension]
    if extension.startswith(".pf_") or extension == ".pagefind":
        return OCTETS
    guessed, _ = mimetypes.guess_type(name, strict=True)
    return guessed or OCTETS


def _sniffed_type(path):
    with open(path, "rb") as file:
        head = file.read(2048)
    found = XML_ROOT.match(head)
    return ROOT_TYPES[found.group(1)] if found else None


def _with_charset(kind):
    """Text in UTF-8 says so, as WhiteNoise does for the live site's static files."""
    bare = kind.split(";")[0].strip()
    if "charset=" in kind or not (bare.startswith("text/") or bare == "application/javascript"):
        return kind
    return f"{kind}; charset=utf-8"


def cache_control(name, entry=None):
    """How long browsers and CDNs may keep ``name``: the manifest's choice, else a year for a
    name that carries its content's hash (static files, Pagefind's chunks), a month for media,
    a few minutes for the rest (pages, feeds, the sitemap, robots.txt, unhashed static files)."""
    if entry and entry.get("cache_control"):
        return entry["cache_control"]
    static, media = _url_folder(settings.STATIC_URL), _url_folder(settings.MEDIA_URL)
    if static and name.startswith(static) and HASHED_STATIC.search(name):
        return IMMUTABLE
    if PAGEFIND_CHUNK.match(name):
        return IMMUTABLE
    if media and name.startswith(media):
        return MEDIA
    return SHORT


def _url_folder(url):
    """``static/`` of STATIC_URL ``/static/``; None for a URL on another host."""
    if not url or "//" in url:
        return None
    return url.strip("/") + "/"


def redirect_target(path, entry=None):
    """Where the page of an old URL (the manifest's kind ``redirect``: a refresh to its
    canonical link) sends the reader; S3's website endpoint answers it with a 301 there."""
    if not entry or entry.get("kind") != "redirect":
        return None
    with open(path, "rb") as file:
        found = CANONICAL.search(file.read(4096))
    if not found:
        return None
    target = html.unescape(found.group(1).decode("utf-8", "replace"))
    return target if target.startswith(("/", "https://", "http://")) else None
