"""The pages of the static copy no link leads to: the 404 pages a host answers a missing path
with, and a page for each old URL of an imported post (``LegacyPath``) that sends the reader to
its note or page, as the live site's 301 does.
"""

import html

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from blog.models import LegacyPath
from blog.models.imported import content_at
from blog.ops.static_site.build_report import BuildError
from blog.ops.static_site.page_files import HTML, for_the_folder
from blog.ops.static_site.serving import quiet

NOT_FOUND = "/__biji-not-found__/"


def not_found_pages(reader, site, writer):
    """``404.html`` (the default language: GitHub Pages, S3's error document, Netlify) and
    ``en/404.html`` (Cloudflare Pages takes the nearest one; Netlify by ``_redirects``)."""
    for language in (settings.LANGUAGE_CODE, "en"):
        with translation.override(language):
            home = reverse("blog:home").removeprefix(site.prefix)
        with quiet("django.request"):  # the 404 is asked for: no warning
            answer = reader.get(home.rstrip("/") + NOT_FOUND)
        if answer.status != 404:
            raise BuildError(f"{home}… answered {answer.status} where a 404 was expected")
        path = home.lstrip("/") + "404.html"
        writer.write(path, for_the_folder(site, answer.body, HTML, home), "404", HTML)


def legacy_redirects(site, pages, writer):
    """An old imported URL (``LegacyPath``) as a page that sends the reader on (a
    ``<meta http-equiv="refresh">`` with the canonical link, for any host); returns the
    ``(old path, target)`` of each, for ``_redirects`` (a real 301 on Netlify and Cloudflare
    Pages). An old path the crawl wrote a page at (``pages``) is left to that page."""
    redirects = []
    taken = {record["file"] for record in pages.values()}
    for legacy in LegacyPath.objects.select_related("note", "page").order_by("path"):
        # In the language of the old path, as the live site redirects it (not whichever
        # language the crawl's last page left active).
        language = translation.get_language_from_path(legacy.path) or settings.LANGUAGE_CODE
        with translation.override(language):
            if legacy.note is not None and legacy.note.is_published():
                target = legacy.note.get_absolute_url()
            elif legacy.page is not None and legacy.page.is_published:
                target = legacy.page.get_absolute_url()
            else:
                continue
        old = legacy.path
        if site.prefix:
            if not old.startswith(site.prefix + "/"):
                continue
            old = old[len(site.prefix) :]
        if content_at(old) is not None:
            continue
        path = redirect_file(old)
        if path is None or path in taken or path in writer.files:
            continue
        absolute = f"{site.scheme}://{site.netloc}{target}"
        writer.write(path, redirect_page(absolute), "redirect", HTML)
        redirects.append((site.prefixed(old), target))
    return redirects


def redirect_file(old):
    """The file serving the old path ``old``: ``old/index.html`` for a folder's path,
    the path itself when it names a file (``/2019/05/x.html``); None for a path that is not."""
    if not old.startswith("/") or ".." in old.split("/") or "?" in old:
        return None
    if old.endswith("/"):
        return old.lstrip("/") + "index.html"
    last = old.rsplit("/", 1)[-1]
    if "." in last:
        return old.lstrip("/")
    return old.lstrip("/") + "/index.html"


def redirect_page(target):
    url = html.escape(target)
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>{url}</title>"
        f'<link rel="canonical" href="{url}">'
        '<meta name="robots" content="noindex">'
        f'<meta http-equiv="refresh" content="0; url={url}">'
        f'</head><body><p><a href="{url}">{url}</a></p></body></html>\n'
    ).encode()
