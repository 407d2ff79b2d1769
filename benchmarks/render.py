"""What each text of the pathological corpus costs the renderer, within its bounds and without.

    make bench-render                       # the corpus and realistic notes, default bounds
    python -m benchmarks render --raw-bytes 16384 --raw-seconds 60

For each text of :mod:`benchmarks.render_corpus` (at the size limit) and for realistic notes
made of the demo blog's notes (20 KB to 1 MB), prints the outcome of ``render_markdown`` under
the site's bounds (rendered, or refused and why) and its wall time, then what its first
``--raw-bytes`` cost with the bound lifted to ``--raw-seconds`` (the shape of the problem the
bound answers). With the machine, the bounds and the load average. Not a test.
"""

import os
import platform
import resource
import time
from pathlib import Path

from django.core.management.base import BaseCommand
from django.test import override_settings

from benchmarks.pages import _cpu_name
from benchmarks.render_corpus import CORPUS
from blog.rendering import RenderRefused, budget, render_markdown, render_process

DEMO_NOTES = Path(__file__).resolve().parent.parent / "blog" / "ops" / "demo" / "notes"


def realistic(size):
    """The demo's notes, front matter left out, one after another up to ``size`` bytes."""
    texts = []
    for path in sorted(DEMO_NOTES.glob("*.md")):
        text = path.read_text()
        texts.append(text.split("---", 2)[2] if text.startswith("---") else text)
    body = "\n\n".join(texts)
    body = body * (size // len(body.encode()) + 1)
    return body.encode()[:size].decode(errors="ignore")


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(text):
    """(outcome, wall seconds, CPU seconds of the render's child) of rendering ``text``, in a
    child of its own (stopped and reaped, so that its CPU time is counted)."""
    budget.forget()
    render_process.stop_kept()
    start, cpu = time.perf_counter(), _children_cpu()
    try:
        render_markdown(text)
        outcome = "rendered"
    except RenderRefused as refusal:
        outcome = f"refused ({refusal.bound})"
    render_process.stop_kept()
    return outcome, time.perf_counter() - start, _children_cpu() - cpu


def per_render_cost(count, ballast_mb):
    """Milliseconds of wall time and of CPU (this process's and its children's) a short render
    costs, ``count`` in a row, beside ``ballast_mb`` more of this process's memory: with the
    kept child, then with a child forked for each render."""
    ballast = [bytearray(b"\x01") * 2**20 for _ in range(ballast_mb)]  # noqa: F841 (held)
    rows = []
    for label, kept in (("kept child", render_process.KEPT_RENDERS), ("a child each", 0)):
        render_process.stop_kept()
        render_process.KEPT_RENDERS, saved = kept, render_process.KEPT_RENDERS
        budget.forget()
        own, children = resource.getrusage(resource.RUSAGE_SELF), _children_cpu()
        start = time.perf_counter()
        for i in range(count):
            render_markdown(f"## 第 {i} 节\n\nA *short* note with `code` and $x^{i}$.")
        wall = time.perf_counter() - start
        render_process.stop_kept()
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime) + (
            _children_cpu() - children
        )
        render_process.KEPT_RENDERS = saved
        rows.append((label, wall * 1000 / count, cpu * 1000 / count))
    return rows


class Command(BaseCommand):
    help = "Time the renderer on the pathological corpus and on realistic notes."

    def add_arguments(self, parser):
        parser.add_argument("--raw-bytes", type=int, default=16 * 1024)
        parser.add_argument("--raw-seconds", type=float, default=30.0)
        parser.add_argument("--ballast-mb", type=int, default=500)

    def handle(self, *args, raw_bytes, raw_seconds, ballast_mb, **options):
        from django.conf import settings

        texts = dict(CORPUS)
        for size in (20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000):
            texts[f"realistic notes, {size // 1000} KB"] = realistic(size)
        self.stdout.write(
            f"{platform.node()} ({_cpu_name()}, {os.cpu_count()} cores), load average "
            f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}; bounds: "
            f"{settings.BIJI_RENDER_SECONDS:g} s CPU, {settings.BIJI_RENDER_WALL_SECONDS:g} s "
            f"wall, {settings.BIJI_RENDER_MEMORY_MB} MB\n"
        )
        self.stdout.write(
            f"| text | bytes | bounded: outcome | CPU s | wall s | first {raw_bytes // 1024} KB, "
            f"unbounded (≤ {raw_seconds:g} s) |"
        )
        self.stdout.write("|---|---:|---|---:|---:|---|")
        for name, text in texts.items():
            outcome, seconds, cpu = timed(text)
            prefix = text.encode()[:raw_bytes].decode(errors="ignore")
            with override_settings(
                BIJI_RENDER_SECONDS=raw_seconds, BIJI_RENDER_WALL_SECONDS=raw_seconds * 2
            ):
                raw_outcome, raw, _cpu = timed(prefix)
            raw_text = f"{raw:.2f} s" if raw_outcome == "rendered" else f"> {raw_seconds:g} s"
            self.stdout.write(
                f"| {name} | {len(text.encode()):,} | {outcome} | {cpu:.2f} | {seconds:.2f} "
                f"| {raw_text} |"
            )

        self.stdout.write(
            f"\n200 short renders in a row beside {ballast_mb} MB more of this process's memory "
            f"(RSS {_rss_mb():.0f} MB before):\n"
        )
        self.stdout.write("| child | wall ms a render | CPU ms a render (parent and child) |")
        self.stdout.write("|---|---:|---:|")
        for label, wall, cpu in per_render_cost(200, ballast_mb):
            self.stdout.write(f"| {label} | {wall:.1f} | {cpu:.1f} |")


def _rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
