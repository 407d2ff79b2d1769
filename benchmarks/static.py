"""The static copy at size: ``manage.py build_site`` from scratch, then again after one edit, and
with nothing changed; the Pagefind index's size (``make bench-static``).

    python -m benchmarks static --notes 10000 --folder /tmp/biji-static-bench

On the scratch database of ``DATABASE_URL`` (filled as :mod:`benchmarks.pages` does, and refused
if it holds notes the benchmark did not make). Prints a markdown table with the date, machine,
load average and data size.
"""

import os
import platform
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand
from django.db import connection

from benchmarks.pages import Command as PagesCommand
from benchmarks.pages import _cpu_name, add_data_and_server_arguments
from benchmarks.traffic import _load
from blog.models import Note
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

    def handle(self, *args, **options):
        PagesCommand()._prepare({**options, "only": None, "no_wrk": True})
        folder, load_before = options["folder"], _load()
        shutil.rmtree(folder, ignore_errors=True)
        rows = [("from scratch", self.build(folder, options))]
        note = Note.objects.published().order_by("-published_at").first()
        note.body += "\n\nOne more sentence, for the static benchmark."
        note.save()
        rows.append((f"after one edit (note {note.slug})", self.build(folder, options)))
        rows.append(("nothing changed", self.build(folder, options)))
        self.report(rows, folder, options, load_before)

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
