"""``manage.py build_site DIR``: the whole public site as files, kept up to date part by part.

A build crawls the live site in-process (:mod:`.serving`) from the home pages, the sitemap and
robots.txt, following every link, ``<loc>`` and feed link to a public page or feed
(:func:`.addresses.is_wanted`), and writes each answer at its path (:func:`.addresses.file_for`).
It records in the manifest (``DIR/.biji-build.json``) each file's content type and kind, and for
each URL its file, the parts it shows with their versions (the ``xkey`` header, read with
:func:`blog.caching.version.current_with_parts`) and its links.

The next build re-renders only the URLs whose parts' versions moved, follows the links of those
pages to URLs it did not have, and deletes the files of URLs that no longer answer (an
unpublished note) or that nothing links to any more. Everything is built again when the
release, the base URL, the subscription endpoint or the content state's schedule key (a
scheduled note came due) changed, when the last build did not finish, or with ``full``.

Only files the manifest lists are ever deleted: anything else in the folder (Pagefind's index,
a ``.git``, a ``CNAME``) is left alone.
"""

import contextlib
import html
import json
import logging
import mimetypes
import os
import re
import shutil
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils import translation

from blog.caching import release, version
from blog.models import LegacyPath
from blog.models.images import media_url
from blog.models.imported import content_at
from blog.ops.static_site import addresses
from blog.ops.static_site.serving import serving

MANIFEST = ".biji-build.json"
FORMAT = 1
START = ("/", "/en/", "/sitemap.xml", "/robots.txt")
MAX_URLS = 200_000
TIME_LIMIT = 4 * 3600  # seconds
BATCH = 500  # pages rendered between two reads of their parts' versions
NAMES_PER_QUERY = 900  # parts' names in one query (SQLite's older limit is 999 parameters)
UNKNOWN = -1  # a version no part has: the page is rendered again next time
MEDIA_FOLDERS = ("uploads", "covers", "variants", "cards")
NOT_FOUND = "/__biji-not-found__/"
HTML = "text/html; charset=utf-8"

SUBSCRIBE_SECTION = re.compile(r'\s*<section class="mail-subscribe"[^>]*>.*?</section>', re.S)
SUBSCRIBE_ACTION = re.compile(r'(<form class="mail-subscribe-form"[^>]*\baction=")[^"]*(")')
PREFIXED_ATTRIBUTE = re.compile(r'(\s(?:src|href|srcset|content|poster)=")([^"]*)(")')
ROOT_ASSET = re.compile(r"(^|[\s,])(/(?:static|media)/)")


# What the live site sends on every page, and a static host can send from ``_headers``.
SECURITY_HEADERS = (
    "Content-Security-Policy",
    "Permissions-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-Frame-Options",
    "Strict-Transport-Security",
)


class BuildError(RuntimeError):
    pass


@dataclass
class Report:
    written: set = field(default_factory=set)  # files whose bytes changed or are new
    unchanged: set = field(default_factory=set)  # files left as they were
    deleted: set = field(default_factory=set)
    rendered: set = field(default_factory=set)  # URLs asked of the live site
    gone: set = field(default_factory=set)  # URLs built before that no longer answer
    full: bool = True
    why: str = ""
    seconds: float = 0.0
    moved_during_build: bool = False
    search: dict | None = None
    phases: dict = field(default_factory=dict)  # seconds each step took

    def summary(self):
        kind = f"full build ({self.why})" if self.full else "incremental build"
        return (
            f"{kind}: {len(self.rendered)} URLs rendered; {len(self.written)} files written, "
            f"{len(self.unchanged)} unchanged, {len(self.deleted)} deleted, "
            f"in {self.seconds:.2f} s ("
            + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in self.phases.items())
            + ")"
        )


def read_manifest(folder):
    try:
        manifest = json.loads((Path(folder) / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        return None
    return manifest


def subscribe_endpoint():
    return getattr(settings, "BIJI_STATIC_SUBSCRIBE_URL", "") or ""


def build_site(
    folder,
    base_url=None,
    *,
    full=False,
    max_urls=MAX_URLS,
    time_limit=TIME_LIMIT,
    log=lambda line: None,
):
    """Build (or bring up to date) the static copy in ``folder``; returns a :class:`Report`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    base = (base_url or settings.SITE_URL).rstrip("/")
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
        self.files = {}  # path -> {"content_type", "kind", …}
        self.pages = {}  # url -> {"file", "content_type", "parts": {name: version}, "links"}
        self.old = read_manifest(folder) or {}

    # --- the whole run ---------------------------------------------------------------------

    def run(self):
        started = time.monotonic()
        self.deadline = started + self.time_limit
        if settings.STATIC_URL.startswith("/") and not self.static_manifest().is_file():
            raise BuildError(
                f"{settings.STATIC_ROOT} holds no collected static files: run collectstatic first."
            )
        with serving(self.site) as reader:
            self.reader = reader
            state = version.current()
            self.report.full, self.report.why = self.must_rebuild(state)
            # A page gone since the last build answers 404: expected, so no warning.
            with self.phase("pages"), quiet("django.request"):
                complete = self.crawl(state)
            with self.phase("404 and redirects"):
                self.not_found_pages()
                self.legacy_redirects()
            with self.phase("static and media"):
                self.static_files()
                self.media_files()
            self.host_files()
            self.delete_gone(complete)
            manifest = self.manifest(state, complete)
            # Recorded before the search is added: a failing index loses nothing of the build.
            self.write_manifest(manifest)
            with self.phase("search"):
                if self.add_search(manifest):
                    self.write_manifest(manifest)
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

    def must_rebuild(self, state):
        old = self.old
        if self.force_full:
            return True, "asked for"
        if not old:
            return True, "no earlier build"
        checks = (
            (old.get("complete"), "the last build did not finish"),
            (old.get("release") == release.fingerprint(), "a new release"),
            (old.get("base_url") == self.site.base, "another base URL"),
            (old.get("subscribe_url") == subscribe_endpoint(), "another subscription endpoint"),
            (old.get("schedule_key") == state.schedule_key, "a scheduled note came due"),
        )
        for ok, why in checks:
            if not ok:
                return True, why
        return False, ""

    # --- pages and feeds -------------------------------------------------------------------

    def crawl(self, state):
        """Render what moved (everything on a full build) and what is newly linked; drop what
        is gone. False when a bound stopped it."""
        queue = deque()
        if self.report.full:
            queue.extend(START)
        else:
            self.pages = {url: dict(record) for url, record in self.old.get("pages", {}).items()}
            queue.extend(self.moved_pages())
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

    def moved_pages(self):
        """The URLs whose parts' versions moved since they were rendered."""
        names = sorted({name for record in self.pages.values() for name in record["parts"]})
        now = {}
        for start in range(0, len(names), NAMES_PER_QUERY):
            _state, versions = version.current_with_parts(names[start : start + NAMES_PER_QUERY])
            now.update(versions)
        moved = [
            url
            for url, record in self.pages.items()
            if not record["parts"]
            or any(now.get(name) != number for name, number in record["parts"].items())
        ]
        return sorted(moved)

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
        self.write(path, self.for_the_folder(answer.body, answer.content_type, url), kind,
                   answer.content_type, url=url)  # fmt: skip
        self.pages[url] = {
            "file": path,
            "content_type": answer.content_type,
            # Versions are filled in once the batch is done (settle): until then, unknown.
            "parts": dict.fromkeys(sorted(answer.parts), UNKNOWN),
            "links": sorted(links),
        }
        return links

    def settle(self, batch, before):
        """Record the versions of the parts the pages of ``batch`` show: read after they were
        rendered, and kept only if nothing changed since ``before`` (the state when the batch
        began); otherwise they stay unknown, so the next build renders them again."""
        names = sorted(
            {name for url in batch if url in self.pages for name in self.pages[url]["parts"]}
        )
        versions, states = {}, []
        for start in range(0, len(names), NAMES_PER_QUERY):
            state, found = version.current_with_parts(names[start : start + NAMES_PER_QUERY])
            versions.update(found)
            states.append(state)
        after = states[-1] if states else version.current()
        moved = any(
            (s.version, s.schedule_key) != (before.version, before.schedule_key)
            for s in [*states, after]
        )
        if moved:
            self.report.moved_during_build = True
            self.log(
                "The content changed during the build: those pages are rendered again next time."
            )
        for url in batch:
            record = self.pages.get(url)
            if record is not None and not moved:
                record["parts"] = {name: versions.get(name, 0) for name in record["parts"]}
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
            if record["file"] not in self.files:  # kept as it was
                self.keep(record["file"], kind_of(url, record["content_type"]),
                          record["content_type"], url=url)  # fmt: skip

    def for_the_folder(self, body, content_type, url):
        """What a static host serves for ``url``: the live answer with the subscription form
        pointed at the configured endpoint (or left out), pages kept under a query linked by
        their own paths, and, below a path prefix, the static files and media named with it."""
        if not content_type.startswith(("text/html", "application/", "text/xml")):
            return body
        text = body.decode("utf-8")
        if content_type.startswith("text/html"):
            text = without_server_forms(text)
        if "?page=" in text or "?p=" in text:
            text = self.site.rewrite_query_links(text, url)
        if self.site.prefix:
            text = with_prefix(text, self.site.prefix)
        return text.encode("utf-8")

    # --- what is not a crawled page --------------------------------------------------------

    def not_found_pages(self):
        """``404.html`` (the default language: GitHub Pages, S3's error document, Netlify) and
        ``en/404.html`` (Cloudflare Pages takes the nearest one; Netlify by ``_redirects``)."""
        for language in (settings.LANGUAGE_CODE, "en"):
            with translation.override(language):
                home = reverse("blog:home").removeprefix(self.site.prefix)
            with quiet("django.request"):  # the 404 is asked for: no warning
                answer = self.reader.get(home.rstrip("/") + NOT_FOUND)
            if answer.status != 404:
                raise BuildError(f"{home}… answered {answer.status} where a 404 was expected")
            path = home.lstrip("/") + "404.html"
            self.write(path, self.for_the_folder(answer.body, HTML, home), "404", HTML)

    def legacy_redirects(self):
        """An old imported URL (``LegacyPath``) as a page that sends the reader on (a
        ``<meta http-equiv="refresh">`` with the canonical link, for any host) and a line of
        ``_redirects`` (a real 301 on Netlify and Cloudflare Pages)."""
        self.redirects = []
        taken = {record["file"] for record in self.pages.values()}
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
            if self.site.prefix:
                if not old.startswith(self.site.prefix + "/"):
                    continue
                old = old[len(self.site.prefix) :]
            if content_at(old) is not None:
                continue
            path = redirect_file(old)
            if path is None or path in taken or path in self.files:
                continue
            absolute = f"{self.site.scheme}://{self.site.netloc}{target}"
            self.write(path, redirect_page(absolute), "redirect", HTML)
            self.redirects.append((self.site.prefixed(old), target))

    @staticmethod
    def static_manifest():
        return Path(settings.STATIC_ROOT) / release.MANIFEST

    def static_files(self):
        """``STATIC_ROOT`` as collected, at ``STATIC_URL`` (when it is a path on this site)."""
        if not settings.STATIC_URL.startswith("/"):
            return
        root = Path(settings.STATIC_ROOT)
        target = settings.STATIC_URL.strip("/")
        for source in sorted(root.rglob("*")):
            if source.is_file():
                path = f"{target}/{source.relative_to(root).as_posix()}"
                self.copy(source, path, "static")

    def media_files(self):
        """The stored uploads, covers, image variants and share cards, read through the media
        storage (a folder or a bucket), when pages name them on this site (``/media/``); media on
        a bucket or CDN of their own are named there and not copied."""
        served_at = media_url()
        if not served_at.startswith("/"):
            return
        old = self.old.get("files", {}) if not self.report.full else {}
        target = served_at.strip("/")
        for name in stored_files(default_storage, MEDIA_FOLDERS):
            path = f"{target}/{name}"
            seen = {"size": default_storage.size(name), "modified": ""}
            with contextlib.suppress(NotImplementedError, OSError):
                seen["modified"] = default_storage.get_modified_time(name).isoformat()
            record = old.get(path, {})
            if (self.folder / path).is_file() and all(record.get(k) == v for k, v in seen.items()):
                self.keep(path, "media", content_type_of(path), **seen)
                continue
            with default_storage.open(name, "rb") as stored:
                self.write(path, stored.read(), "media", content_type_of(path), **seen)

    def host_files(self):
        """What static hosts read: ``.nojekyll`` (GitHub Pages serves every file as it is),
        ``_redirects`` (Netlify, Cloudflare Pages: the old URLs' 301s, the English 404 page) and
        ``_headers`` (the live site's security headers, a year for static files, and the
        content types of feeds, which a folder's ``index.html`` holds)."""
        self.write(".nojekyll", b"", "host", "text/plain")
        lines = [f"{old} {target} 301" for old, target in self.redirects]
        english = self.site.prefixed("/en/")
        lines.append(f"{english}* {english}404.html 404")
        self.write("_redirects", ("\n".join(lines) + "\n").encode(), "host", "text/plain")
        headers = [f"{self.site.prefixed('/')}*", *self.security_headers()]
        static = (
            self.site.prefixed(settings.STATIC_URL) if settings.STATIC_URL.startswith("/") else ""
        )
        if static:  # hashed names (collectstatic's manifest): they never change what they hold
            headers += [f"{static}*", "  Cache-Control: public, max-age=31536000, immutable"]
        for url, record in sorted(self.pages.items()):
            if record["file"].endswith("index.html") and not record["content_type"].startswith(
                "text/html"
            ):
                headers.append(f"{self.site.prefixed(addresses.static_url(url))}\n"
                               f"  Content-Type: {record['content_type']}")  # fmt: skip
        self.write("_headers", ("\n".join(headers) + "\n").encode(), "host", "text/plain")

    def security_headers(self):
        """The live site's security headers, as ``_headers`` lines for every file: its
        Content-Security-Policy lets the static search run Pagefind's WebAssembly."""
        home = self.reader.client.get(self.site.prefixed("/"), secure=self.reader.secure)
        lines = []
        for name in SECURITY_HEADERS:
            value = home.get(name)
            if value and name == "Content-Security-Policy":
                value = value.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
            if value:
                lines.append(f"  {name}: {value}")
        return lines

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

    # --- files -----------------------------------------------------------------------------

    def write(self, path, data, kind, content_type, **extra):
        target = self.folder / path
        self.files[path] = {"content_type": content_type, "kind": kind, **extra}
        try:
            if target.is_file() and target.read_bytes() == data:
                self.report.unchanged.add(path)
                return
        except OSError:
            pass
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
        self.report.written.add(path)

    def keep(self, path, kind, content_type, **extra):
        self.files[path] = {"content_type": content_type, "kind": kind, **extra}
        self.report.unchanged.add(path)

    def copy(self, source, path, kind):
        target = self.folder / path
        self.files[path] = {"content_type": content_type_of(path), "kind": kind}
        stat = source.stat()
        with contextlib.suppress(OSError):
            mine = target.stat()
            if (mine.st_size, mine.st_mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                self.report.unchanged.add(path)
                return
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        self.report.written.add(path)

    def delete_gone(self, complete):
        """Delete the files the last build wrote that this one did not keep; a build stopped by
        a bound deletes nothing (it did not see the whole site) and lists them still."""
        left = sorted(set(self.old.get("files", {})) - set(self.files))
        if not complete:
            for path in left:
                self.files[path] = self.old["files"][path]
            return
        for path in left:
            target = self.folder / path
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
                self.report.deleted.add(path)
            parent = target.parent
            while parent != self.folder and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent

    def manifest(self, state, complete):
        next_at = state.next_scheduled_at
        return {
            "format": FORMAT,
            "complete": complete,
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "release": release.fingerprint(),
            "base_url": self.site.base,
            "subscribe_url": subscribe_endpoint(),
            "schedule_key": state.schedule_key,
            "next_scheduled_at": next_at.isoformat() if next_at else None,
            "files": dict(sorted(self.files.items())),
            "pages": dict(sorted(self.pages.items())),
        }

    def write_manifest(self, manifest):
        data = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
        temporary = self.folder / f"{MANIFEST}.{uuid.uuid4().hex}.tmp"
        temporary.write_bytes(data)
        os.replace(temporary, self.folder / MANIFEST)


@contextlib.contextmanager
def quiet(name):
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def kind_of(url, content_type):
    if "rss" in content_type or "atom" in content_type:
        return "feed"
    if url.startswith("/sitemap"):
        return "sitemap"
    if url == "/robots.txt":
        return "robots"
    return "page"


def content_type_of(path):
    guessed, _ = mimetypes.guess_type(path)
    return guessed or "application/octet-stream"


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


def stored_files(storage, folders):
    """The names of every file below ``folders`` of ``storage`` (missing folders: none)."""
    pending = list(folders)
    while pending:
        folder = pending.pop()
        try:
            subfolders, names = storage.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            continue
        pending.extend(f"{folder}/{sub}" for sub in subfolders)
        yield from (f"{folder}/{name}" for name in sorted(names) if not name.startswith("."))
