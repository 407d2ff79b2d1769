"""The static copy at size: ``manage.py build_site`` from scratch, then again after one edit, and
with nothing changed; the Pagefind index's size; the static search's time to its first result in
chromium (``make bench-static``).

    python -m benchmarks static --notes 10000 --folder /tmp/biji-static-bench

On the scratch database of ``DATABASE_URL`` (filled as :mod:`benchmarks.pages` does, and refused
if it holds notes the benchmark did not make). Prints a markdown table with the date, machine,
load average and data size.
"""

import functools
import os
import platform
import shutil
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand
from django.db import connection

from benchmarks.pages import Command as PagesCommand
from benchmarks.pages import _cpu_name, add_data_and_server_arguments
from benchmarks.traffic import _load
from blog.models import Note
from blog.ops.static_site import preview
from blog.ops.static_site.build import build_site


class Command(BaseCommand):
    help = "Time the static copy: a build from scratch, after one edit, after none."

    def add_arguments(self, parser):
        add_data_and_server_arguments(parser)
        parser.set_defaults(notes=10_000)
        parser.add_argument(
            "--folder",
            type=Path,
            default=Path("/tmp/biji-static-bench"),  # noqa: S108 (scratch)
        )
        parser.add_argument("--base-url", default="https://notes.example")
        parser.add_argument(
            "--search-only", action="store_true", help="time the search of the folder as built"
        )

    def handle(self, *args, **options):
        folder, load_before = options["folder"], _load()
        if not options["search_only"]:
            PagesCommand()._prepare({**options, "only": None, "no_wrk": True})
            shutil.rmtree(folder, ignore_errors=True)
            rows = [("from scratch", self.build(folder, options))]
            note = Note.objects.published().order_by("-published_at").first()
            note.body += "\n\nOne more sentence, for the static benchmark."
            note.save()
            rows.append((f"after one edit (note {note.slug})", self.build(folder, options)))
            rows.append(("nothing changed", self.build(folder, options)))
            self.report(rows, folder, options, load_before)
        self.search_times(folder)

    def search_times(self, folder):
        """Time to the first result of the static search pages in chromium, served by
        ``serve_site``'s server: a new browser context each time (cold), then the same page
        asked again (warm)."""
        from playwright.sync_api import sync_playwright

        server = preview_server(folder)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        rows = []
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
                )
                for path in SEARCHES:
                    context = browser.new_context()
                    page = context.new_page()
                    cold = first_result(page, base + path)
                    warm = first_result(page, base + path)
                    rows.append((path, cold, warm, page.locator("#search-results li").count()))
                    context.close()
                browser.close()
        finally:
            server.shutdown()
        self.stdout.write(f"\nThe static search in chromium (load average {_load()}):\n")
        self.stdout.write("| search | first result, cold s | again s | results shown |")
        self.stdout.write("|---|---:|---:|---:|")
        for path, cold, warm, shown in rows:
            self.stdout.write(f"| `{path}` | {cold:.2f} | {warm:.2f} | {shown} |")

    def build(self, folder, options):
        started = time.perf_counter()
        report = build_site(folder, base_url=options["base_url"])
        report.wall = time.perf_counter() - started
        self.stdout.write(f"  {report.summary()}")
        return report

    def report(self, rows, folder, options, load_before):
        out = self.stdout.write
        out(
            f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · {connection.vendor}, "
            f"{Note.objects.count()} notes · load average {load_before} before, {_load()} after\n"
        )
        out("| build | s | URLs rendered | files written | unchanged | deleted | search s |")
        out("|---|---:|---:|---:|---:|---:|---:|")
        for name, report in rows:
            out(
                f"| {name} | {report.wall:.1f} | {len(report.rendered):,} | "
                f"{len(report.written):,} | {len(report.unchanged):,} | {len(report.deleted):,} | "
                f"{report.phases.get('search', 0):.1f} |"
            )
        index = folder / "pagefind"
        size = (
            sum(f.stat().st_size for f in index.rglob("*") if f.is_file()) if index.is_dir() else 0
        )
        total = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        out(f"\nThe copy: {total / 1e6:.0f} MB; Pagefind's index {size / 1e6:.1f} MB.")


# A Chinese word, an English word, in each interface.
SEARCHES = ("/search/?q=调度", "/search/?q=kernel", "/en/search/?q=memory", "/en/search/?q=内存")


def first_result(page, url):
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#search-status:not(:empty)", timeout=60_000)
    return time.perf_counter() - started


def preview_server(folder):
    """``manage.py serve_site``'s server on a free port, in a thread."""
    handler = type("Copy", (preview.Handler,), {"rules": preview.header_rules(folder)})
    server = preview.http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
