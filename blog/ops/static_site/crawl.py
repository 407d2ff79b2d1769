"""Which URLs a build renders: from the home pages, the sitemap and robots.txt, every link,
``<loc>`` and feed link to a public page or feed (:func:`.addresses.is_wanted`), each asked of
the live site in-process (:mod:`.serving`) and written at its path (:func:`.addresses.file_for`).

A full build starts from :data:`START`; an incremental one from the pages whose parts moved
(:func:`.part_versions.moved_pages`) and the links of those it renders to URLs it did not have.
A URL that no longer answers (an unpublished note) is dropped, and so is a page nothing links
to any more: their files are deleted after the crawl.
"""

import time
from collections import deque

from blog.ops.static_site import addresses, part_versions
from blog.ops.static_site.page_files import for_the_folder, kind_of

START = ("/", "/en/", "/sitemap.xml", "/robots.txt")
BATCH = 500  # pages rendered between two reads of their parts' versions


class Crawl:
    """One build's walk of the live site (``reader``, a :class:`.serving.Reader` of ``site``),
    writing what it renders with ``writer`` (:class:`.folder_writer.FolderWriter`); ``pages``:
    url -> {"file", "content_type", "parts": {name: version}, "links"}, for the manifest."""

    def __init__(self, reader, site, writer, report, *, max_urls, deadline, log):
        self.reader = reader
        self.site = site
        self.writer = writer
        self.report = report
        self.max_urls = max_urls
        self.deadline = deadline
        self.log = log
        self.pages = {}

    def run(self, state, old_pages=None):
        """Render what moved since ``old_pages`` (the last build's; everything when None) and
        what is newly linked; drop what is gone. False when a bound stopped it."""
        queue = deque()
        if old_pages is None:
            queue.extend(START)
        else:
            self.pages = {url: dict(record) for url, record in old_pages.items()}
            queue.extend(part_versions.moved_pages(self.pages))
            queue.extend(url for url in START if url not in self.pages)
        done = set()
        batch = []
        batch_state = state
        while queue:
            url = queue.popleft()
            if url in done:
                continue
            if len(done) >= self.max_urls or time.monotonic() > self.deadline:
                self.settle(batch, batch_state)
                return False
            done.add(url)
            links = self.render(url)
            if links is None:
                continue
            batch.append(url)
            for link in sorted(links):
                if link not in done and link not in self.pages and addresses.is_wanted(link):
                    queue.append(link)
            if len(batch) >= BATCH:
                batch_state = self.settle(batch, batch_state)
                batch = []
        self.settle(batch, batch_state)
        self.keep_reachable()
        return True

    def render(self, url):
        """Ask the live site for ``url`` and write it; its links, or None when it is gone."""
        self.report.rendered.add(url)
        answer = self.reader.get(url)
        if answer.status != 200 or not answer.is_public:
            if self.pages.pop(url, None) is not None:
                self.report.gone.add(url)
            return None
        path = addresses.file_for(url)
        links = self.site.links_in(answer.body, url)
        kind = kind_of(url, answer.content_type)
        body = for_the_folder(self.site, answer.body, answer.content_type, url)
        self.writer.write(path, body, kind, answer.content_type, url=url)
        self.pages[url] = {
            "file": path,
            "content_type": answer.content_type,
            # Versions are filled in once the batch is done (settle): until then, unknown.
            "parts": dict.fromkeys(sorted(answer.parts), part_versions.UNKNOWN),
            "links": sorted(links),
        }
        return links

    def settle(self, batch, before):
        after, moved = part_versions.settle(self.pages, batch, before)
        if moved:
            self.report.moved_during_build = True
            self.log(
                "The content changed during the build: those pages are rendered again next time."
            )
        return after

    def keep_reachable(self):
        """Drop the pages nothing links to any more (from the start URLs)."""
        reached, queue = set(), deque(url for url in START if url in self.pages)
        while queue:
            url = queue.popleft()
            if url in reached:
                continue
            reached.add(url)
            queue.extend(link for link in self.pages[url]["links"] if link in self.pages)
        for url in set(self.pages) - reached:
            del self.pages[url]
        for url, record in self.pages.items():
            if record["file"] not in self.writer.files:  # kept as it was
                kind = kind_of(url, record["content_type"])
                self.writer.keep(record["file"], kind, record["content_type"], url=url)
