"""Bytes of images a reader downloads for a note with five 4000 × 3000 photos, before and after
biji makes their width variants (issue 23): measured in chromium, as a phone and a laptop.

    make bench-images                      # a scratch SQLite file, media and static in /tmp
    DATABASE_URL=sqlite:////tmp/biji-images.sqlite3 MEDIA_ROOT=/tmp/biji-images-media \\
        STATIC_ROOT=/tmp/biji-images-static DJANGO_SECRET_KEY=bench \\
        DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost python -m benchmarks images

On the scratch database of ``DATABASE_URL`` (one holding notes this benchmark did not make is
refused without ``--force``):

1. stores five generated photos (:mod:`benchmarks.photos`: 4000 × 3000 JPEGs of ~3 MB) the
   way the editor's upload does and publishes a note showing them; nothing makes variants yet,
   as on a site whose background runner has not caught up;
2. starts gunicorn (``--workers``, serving ``/media/`` itself: ``BIJI_SERVE_MEDIA=1``) and
   opens the note in Debian's chromium, headless, in a fresh context for each viewport of
   :data:`VIEWPORTS` (a 390 px phone at device pixel ratio 1 and 3, a 1280 px laptop at 1 and
   2); scrolls to the end so every lazy image loads, waits for the network to go quiet, and
   sums the bytes on the wire (body and headers) of every image request: *before*;
3. makes the variants with ``manage.py imagevariants`` (what the background runner does after
   an upload) and measures again, same server: *after*;
4. prints a markdown table (*picked*: the width and format of what the browser chose after,
   counted) with the date, machine, chromium and load average. Not a test:
   tests/browser/test_image_bytes.py holds a ceiling.

The photos are generated: smooth shapes under a sensor-like grain at every pixel. The grain is
what modern codecs spend their bytes on, so the variants here are if anything larger than a
real photo's.
"""

import io
import os
import platform
import re
import subprocess
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from benchmarks import photos
from benchmarks.pages import Server, _cpu_name
from blog.models import ImageFile, Note

CHROMIUM = Path(os.environ.get("BIJI_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
# (name, CSS width, CSS height, device pixel ratio). 390 × 844: the iPhone 12-15's viewport.
VIEWPORTS = [
    ("phone", 390, 844, 1),
    ("phone", 390, 844, 3),
    ("laptop", 1280, 800, 1),
    ("laptop", 1280, 800, 2),
]

# Installed before the page's own scripts: the layout shifts of the whole visit (load and
# scroll), as the Cumulative Layout Shift metric counts them (shifts right after input do not).
LAYOUT_SHIFTS = """
window.__layoutShift = {total: 0, shifts: []};
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__layoutShift.total += entry.value;
    window.__layoutShift.shifts.push({
      value: entry.value,
      sources: (entry.sources || []).map(s => s.node ? s.node.outerHTML.slice(0, 160) : "?"),
    });
  }
}).observe({type: "layout-shift", buffered: true});
"""

# Every <img> of the page, in document order, once loaded.
IMAGES = """() => [...document.querySelectorAll("img")].map(img => ({
  src: img.getAttribute("src"),
  current: img.currentSrc,
  natural: img.naturalWidth,
  shown: img.getBoundingClientRect().width,
  width: img.getAttribute("width"),
  height: img.getAttribute("height"),
  loading: img.getAttribute("loading"),
  decoding: img.getAttribute("decoding"),
  inPicture: img.parentElement.tagName === "PICTURE",
  complete: img.complete,
}))"""


@dataclass
class Visit:
    """What one visit of a page fetched and showed."""

    fetched: list = field(default_factory=list)  # images: (url, content type, bytes on the wire)
    images: list = field(default_factory=list)  # IMAGES' answer
    layout_shift: float = 0.0
    shifts: list = field(default_factory=list)

    @property
    def image_bytes(self):
        return sum(size for _url, _type, size in self.fetched)

    def listing(self):
        return "\n".join(f"  {size:>9,} B  {kind:<11} {url}" for url, kind, size in self.fetched)


def scroll_to_the_end(page, pause_ms=150):
    """Scroll down a screen at a time, as a reader does, so every lazy image is asked for;
    then wait until the network is quiet and every image has loaded."""
    while True:
        at_end = page.evaluate(
            "() => { window.scrollBy(0, innerHeight);"
            " return scrollY + innerHeight >= document.documentElement.scrollHeight - 1; }"
        )
        page.wait_for_timeout(pause_ms)
        if at_end:
            break
    page.wait_for_load_state("networkidle")
    page.wait_for_function("[...document.images].every(img => img.complete)")


def visit(page, url):
    """Open ``url`` in ``page`` (a fresh Playwright page) and scroll to the end: a
    :class:`Visit` of the images it fetched, its ``<img>`` elements and its layout shift."""
    page.add_init_script(LAYOUT_SHIFTS)
    finished = []
    page.on("requestfinished", lambda request: finished.append(request))
    response = page.goto(url, wait_until="load")
    if response is None or response.status != 200:
        raise CommandError(f"{url} answered {response and response.status}")
    scroll_to_the_end(page)
    result = Visit()
    for request in finished:
        if request.resource_type != "image":
            continue
        sizes = request.sizes()
        kind = (request.response().header_value("content-type") or "?").split(";")[0]
        wire = sizes["responseHeadersSize"] + sizes["responseBodySize"]
        result.fetched.append((request.url, kind, wire))
    result.images = page.evaluate(IMAGES)
    shift = page.evaluate("window.__layoutShift")
    result.layout_shift, result.shifts = shift["total"], shift["shifts"]
    return result


def launch(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def measure(url, viewports=VIEWPORTS):
    """``{viewport: Visit}`` for each of ``viewports``, each in a fresh context (no cache)."""
    # Playwright's sync API runs an asyncio loop while it lives, and Django refuses the ORM
    # inside one: it is started and stopped here, around the visits only.
    from playwright.sync_api import sync_playwright

    visits = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for viewport in viewports:
                _name, width, height, ratio = viewport
                context = browser.new_context(
                    viewport={"width": width, "height": height}, device_scale_factor=ratio
                )
                try:
                    visits[viewport] = visit(context.new_page(), url)
                finally:
                    context.close()
        finally:
            browser.close()
    return visits


def _chromium_version():
    try:
        done = subprocess.run(  # noqa: S603 (a fixed path)
            [str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return "chromium (not found)"
    return done.stdout.strip() or "chromium"


def _kb(size):
    return f"{size / 1024:,.0f} KB"


def picked(image):
    """``"1600 px avif"`` (a variant, by its name: ``…-1600.avif``) or ``"original jpg"``:
    the file the browser chose for one ``<img>`` (an entry of :data:`IMAGES`)."""
    name = (image["current"] or "").split("?", 1)[0].rsplit("/", 1)[-1]
    variant = re.search(r"-(\d+)\.(avif|webp)$", name)
    if variant:
        return f"{variant.group(1)} px {variant.group(2)}"
    return f"original {name.rsplit('.', 1)[-1] if '.' in name else '?'}"


def _picked(visit_):
    """``"5 × 1600 px avif"``: what the browser chose for the note's images, counted."""
    counts = {}
    for image in visit_.images:
        if (image["src"] or "").startswith(settings.MEDIA_URL):
            counts[picked(image)] = counts.get(picked(image), 0) + 1
    return ", ".join(f"{n} × {key}" for key, n in sorted(counts.items()))


class Command(BaseCommand):
    help = (
        "Image bytes of a note with five 4000 × 3000 photos in chromium, before and after variants."
    )

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="use a database with notes")
        parser.add_argument("--port", type=int, default=8790)
        parser.add_argument("--workers", type=int, default=2)

    def handle(self, *args, **options):
        if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
            raise CommandError(f"{CHROMIUM} is missing: `make browser-deps` installs it.")
        note = self._prepare(options)
        url_path = note.get_absolute_url()
        self.stdout.write(f"Measuring {url_path} ({photos.PHOTOS} photos)…")
        env = {"BIJI_SERVE_MEDIA": "1"}
        with Server(options["port"], options["workers"], env) as server:
            before = measure(server.url(url_path))
            self.stdout.write("Making the variants (manage.py imagevariants)…")
            started = time.perf_counter()
            out = io.StringIO()
            call_command("imagevariants", stdout=out)
            took = time.perf_counter() - started
            self.stdout.write(f"  {out.getvalue().strip()} ({took:.1f} s)")
            after = measure(server.url(url_path))
        self._report(note, before, after, took, options)

    def _prepare(self, options):
        """The database migrated, static files collected, the photo note made afresh."""
        call_command("migrate", verbosity=0, interactive=False)
        others = Note.objects.exclude(slug=photos.SLUG)
        if others.exists() and not options["force"]:
            raise CommandError(
                f"{settings.DATABASES['default']['NAME']} holds notes this benchmark did not "
                "make; refusing to touch them. Point DATABASE_URL at a scratch database."
            )
        for old in Note.objects.filter(slug=photos.SLUG):  # an earlier run's, with its files
            images = ImageFile.objects.filter(name__in=photos.stored_names(old))
            for image in images:
                for name in [image.name, *(variant["name"] for variant in image.variants)]:
                    default_storage.delete(name)
            images.delete()
            old.delete()
        call_command("collectstatic", interactive=False, verbosity=0)
        started = time.perf_counter()
        note = photos.make_photo_note()
        took = time.perf_counter() - started
        self.stdout.write(f"Stored {photos.PHOTOS} photos and published the note in {took:.0f} s.")
        return note

    def _report(self, note, before, after, took, options):
        out = self.stdout.write
        originals = photos.original_bytes(note)
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        out("")
        out(
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · {_chromium_version()}, headless · "
            f"gunicorn {options['workers']} workers, media from Django · {photos.PHOTOS} photos "
            f"4000 × 3000, {originals / 1024 / 1024:.1f} MB stored · variants made in "
            f"{took:.1f} s · load average {load}"
        )
        out("")
        out("| viewport | before: image bytes | after: image bytes | after / before | picked |")
        out("|---|---:|---:|---:|---|")
        for viewport, first in before.items():
            name, width, _height, ratio = viewport
            second = after[viewport]
            share = second.image_bytes / first.image_bytes if first.image_bytes else 0
            out(
                f"| {name} {width} px, DPR {ratio} | {_kb(first.image_bytes)} "
                f"({len(first.fetched)} files) | {_kb(second.image_bytes)} "
                f"({len(second.fetched)} files) | {100 * share:.1f}% | {_picked(second)} |"
            )
        out("")
        out("Layout shift (CLS over load and scroll), before / after:")
        for viewport, first in before.items():
            _name, width, _height, ratio = viewport
            second = after[viewport]
            moved = {
                " ".join(source.split())[:60]
                for shift in second.shifts
                for source in shift["sources"]
            }
            what = f" (moved: {'; '.join(sorted(moved))})" if moved else ""
            shifts = f"{first.layout_shift:.4f} / {second.layout_shift:.4f}"
            out(f"- {width} px, DPR {ratio}: {shifts}{what}")
