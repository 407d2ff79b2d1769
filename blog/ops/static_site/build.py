"""``manage.py build_site DIR``: the whole public site as files, kept up to date part by part.

A build runs these steps in order, each in a module of its own:

1. the crawl (:mod:`.crawl`): the live site read in-process (:mod:`.serving`) from the home
   pages, the sitemap and robots.txt, following every link to a public page or feed, each answer
   written at its path (:mod:`.addresses`) as a static host serves it (:mod:`.page_files`);
2. the pages no link leads to, the 404 pages and the old URLs' redirects
   (:mod:`.not_found_and_redirects`);
3. the static files and media (:mod:`.static_and_media`);
4. what static hosts read, ``_redirects`` and ``_headers`` (:mod:`.host_files`);
5. the files of URLs gone since the last build deleted (:mod:`.folder_writer`), and the
   manifest written (:mod:`.manifest`);
6. Pagefind's index and the search pages (:mod:`.search`), unless no indexed page changed.

The next build re-renders only the URLs whose parts' versions moved (:mod:`.part_versions`),
follows the links of those pages to URLs it did not have, and deletes the files of URLs that no
longer answer (an unpublished note) or that nothing links to any more. Everything is built again
when the release, the base URL, the subscription endpoint or the content state's schedule key (a
scheduled note came due) changed, when the last build did not finish, or with ``full``.

Only files the manifest lists are ever deleted: anything else in the folder (Pagefind's index,
a ``.git``, a ``CNAME``) is left alone. One build or publish of a folder runs at a time
(:mod:`.folder_lock`).
"""

import contextlib
import time
from pathlib import Path

from django.conf import settings

from blog.caching import version
from blog.ops.static_site import addresses
from blog.ops.static_site.build_report import BuildError, Report
from blog.ops.static_site.crawl import Crawl
from blog.ops.static_site.folder_lock import held
from blog.ops.static_site.folder_writer import FolderWriter
from blog.ops.static_site.host_files import write_host_files
from blog.ops.static_site.manifest import (
    new_manifest,
    read_manifest,
    rebuild_reason,
    write_manifest,
)
from blog.ops.static_site.not_found_and_redirects import legacy_redirects, not_found_pages
from blog.ops.static_site.serving import quiet, serving
from blog.ops.static_site.static_and_media import media_files, static_files, static_manifest

MAX_URLS = 200_000
TIME_LIMIT = 4 * 3600  # seconds


def build_site(
    folder,
    base_url=None,
    *,
    full=False,
    max_urls=MAX_URLS,
    time_limit=TIME_LIMIT,
    log=lambda line: None,
):
    """Build (or bring up to date) the static copy in ``folder``; returns a :class:`Report`.
    Raises :class:`.folder_lock.FolderBusy` when another build or publish of ``folder`` runs."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    base = (base_url or settings.SITE_URL).rstrip("/")
    with held(folder):
        return Build(folder, base, full, max_urls, time_limit, log).run()


class Build:
    def __init__(self, folder, base, full, max_urls, time_limit, log):
        self.folder = folder
        self.site = addresses.Site(base)
        self.force_full = full
        self.max_urls = max_urls
        self.time_limit = time_limit
        self.log = log
        self.report = Report()
        self.writer = FolderWriter(folder, self.report)
        self.pages = {}  # url -> {"file", "content_type", "parts": {name: version}, "links"}
        self.old = read_manifest(folder) or {}

    def run(self):
        started = time.monotonic()
        if settings.STATIC_URL.startswith("/") and not static_manifest().is_file():
            raise BuildError(
                f"{settings.STATIC_ROOT} holds no collected static files: run collectstatic first."
            )
        with serving(self.site) as reader:
            state = version.current()
            self.report.full, self.report.why = rebuild_reason(
                self.old, asked=self.force_full, base_url=self.site.base, state=state
            )
            old_files = {} if self.report.full else self.old.get("files", {})
            crawl = Crawl(
                reader,
                self.site,
                self.writer,
                self.report,
                max_urls=self.max_urls,
                deadline=started + self.time_limit,
                log=self.log,
            )
            # A page gone since the last build answers 404: expected, so no warning.
            with self.phase("pages"), quiet("django.request"):
                complete = crawl.run(state, None if self.report.full else self.old.get("pages", {}))
            self.pages = crawl.pages
            with self.phase("404 and redirects"):
                not_found_pages(reader, self.site, self.writer)
                redirects = legacy_redirects(self.site, self.pages, self.writer)
            with self.phase("static and media"):
                static_files(self.writer)
                media_files(self.writer, old_files)
            write_host_files(self.writer, self.site, self.pages, redirects, reader)
            self.writer.delete_gone(self.old.get("files", {}), complete)
            manifest = new_manifest(
                state, complete, base_url=self.site.base, files=self.writer.files, pages=self.pages
            )
            # Recorded before the search is added: a failing index loses nothing of the build.
            write_manifest(self.folder, manifest)
            with self.phase("search"):
                if self.add_search(manifest):
                    write_manifest(self.folder, manifest)
        self.report.seconds = time.monotonic() - started
        if not complete:
            raise BuildError(
                f"Stopped after {len(self.report.rendered)} URLs (bounds: {self.max_urls} URLs, "
                f"{self.time_limit} s); the next build starts again from scratch."
            )
        return self.report

    @contextlib.contextmanager
    def phase(self, name):
        started = time.monotonic()
        try:
            yield
        finally:
            self.report.phases[name] = round(time.monotonic() - started, 3)

    def add_search(self, manifest):
        """Pagefind's index and the search pages (``search.py``, when it is there): True when
        added."""
        try:
            from blog.ops.static_site import search
        except ImportError:
            return False
        if self.search_is_current():
            manifest["search"] = self.report.search = self.old["search"]
            return True
        self.report.search = search.add_search(self.folder, manifest)
        return True

    def search_is_current(self):
        """Whether the last build's index still holds: an incremental build that wrote no note
        page (what Pagefind indexes) and no glossary page (the terms the search pages expand)."""
        if self.report.full or not self.old.get("search"):
            return False
        if not (self.folder / "pagefind").is_dir():
            return False
        indexed = ("notes/", "glossary/")
        return not any(path.removeprefix("en/").startswith(indexed) for path in self.report.written)
