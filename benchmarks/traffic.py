"""Measure the site under real traffic: many pages of skewed popularity, while the author edits.

    make bench-traffic                     # 2,000 notes, SQLite, the embedded cache and Redis
    python -m benchmarks traffic --notes 2000 --cache embedded,redis --edit-every 5,1

On the scratch database of ``DATABASE_URL`` (filled as :mod:`benchmarks.pages` does, and
refused if it holds notes the benchmark did not make), for each cache setup in ``--cache``
(``embedded``: the default without ``REDIS_URL``; ``redis``: ``REDIS_URL``, under a key prefix
of this run's own, never flushed):

1. starts gunicorn (``--workers``) and wrk (``-t``/``-c``) on a *mix* of ``--mix`` pages: the
   home page, ``/en/``, the tag index, the archive and the feed, then published notes, each
   asked with the popularity of its rank (Zipf, s = ``--skew``: the first page gets about a
   sixth of the requests, the last a few hundredths of a percent), as a Lua script;
2. warms the mix for ``--warm`` seconds, then measures it for ``--duration`` seconds: *warm*;
3. measures it again while this process edits a note of the mix (a body change, saved as the
   admin saves it) every K seconds, for each K of ``--edit-every``;
4. measures whitenoise serving the note page's bytes as a static file in the same server:
   the yardstick;
5. reports the resident memory of each worker after the warm run.

Prints a markdown table (requests/s, p99, share of the static file's rate) with the date,
machine, load average and data size. Not a test: numbers depend on the machine.
"""

import argparse
import os
import platform
import random
import shutil
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection
from django.urls import reverse

from benchmarks import data as benchdata
from benchmarks.pages import Command as PagesCommand
from benchmarks.pages import (
    Server,
    _cpu_name,
    add_data_and_server_arguments,
    run_wrk,
    write_yardstick,
)
from blog.models import Note

LUA = """
local paths = {%(paths)s}
local cumulative = {%(cumulative)s}
local headers = {["Accept-Encoding"] = "gzip"}
local thread_count = 0

function setup(thread)
    thread_count = thread_count + 1
    thread:set("seed", thread_count)
end

function init(args)
    math.randomseed(seed * 7919)
end

request = function()
    local r = math.random()
    local low, high = 1, #cumulative
    while low < high do
        local middle = math.floor((low + high) / 2)
        if cumulative[middle] < r then low = middle + 1 else high = middle end
    end
    return wrk.format("GET", paths[low], headers)
end
"""


def mix_paths(count):
    """The mix, most popular first: the lists readers start from, then notes, newest first."""
    paths = [
        reverse("blog:home"),
        "/en/",
        reverse("feeds:all-rss"),
        reverse("blog:tag-list"),
        reverse("blog:archive"),
    ]
    notes = (
        Note.objects.published()
        .filter(slug__startswith=benchdata.SLUG_PREFIX)
        .order_by("-published_at", "-pk")
        .values_list("slug", flat=True)[: max(count - len(paths), 0)]
    )
    paths += [reverse("blog:note-detail", kwargs={"slug": slug}) for slug in notes]
    return paths[:count]


def add_mix_arguments(parser):
    """The mix's options (shared with :mod:`benchmarks.edge`)."""
    parser.add_argument("--warm", type=int, default=10, help="seconds of warming")
    parser.add_argument("--mix", type=int, default=305, help="distinct pages")
    parser.add_argument("--skew", type=float, default=1.0, help="Zipf exponent")


def zipf_cumulative(count, skew):
    weights = [1 / (rank**skew) for rank in range(1, count + 1)]
    total, running, cumulative = sum(weights), 0.0, []
    for weight in weights:
        running += weight
        cumulative.append(running / total)
    cumulative[-1] = 1.0
    return cumulative


def lua_script(paths, skew, folder):
    script = Path(folder) / "biji-mix.lua"
    script.write_text(
        LUA
        % {
            "paths": ", ".join(f'"{path}"' for path in paths),
            "cumulative": ", ".join(f"{value:.8f}" for value in zipf_cumulative(len(paths), skew)),
        }
    )
    return script


class Editor(threading.Thread):
    """Edits a note of the mix every ``every`` seconds, as the admin saves it, until stopped."""

    def __init__(self, slugs, every, seed):
        super().__init__(daemon=True)
        self.slugs, self.every = slugs, every
        self.rng = random.Random(seed)
        self.stopping = threading.Event()
        self.edits = 0

    def run(self):
        try:
            while not self.stopping.wait(self.every):
                note = Note.objects.get(slug=self.rng.choice(self.slugs))
                marker = " (edited)"
                if note.body.endswith(marker):
                    note.body = note.body.removesuffix(marker)
                else:
                    note.body += marker
                note.save()
                self.edits += 1
        finally:
            close_old_connections()
            connection.close()

    def stop(self):
        self.stopping.set()
        self.join()


def worker_memory(server):
    """Resident memory of each gunicorn worker (MB), from /proc."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children")
    sizes = []
    for child in children.read_text().split() if children.exists() else []:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes.append(int(line.split()[1]) / 1024)
    return sizes


class Command(BaseCommand):
    help = "Benchmark a mix of pages with skewed popularity, warm and while the author edits."

    def add_arguments(self, parser):
        add_data_and_server_arguments(parser)
        parser.set_defaults(notes=2000, port=8775, duration=10)
        add_mix_arguments(parser)
        parser.add_argument("--cache", type=_names, default=("embedded", "redis"))
        parser.add_argument("--edit-every", type=_seconds, default=(5.0, 1.0))

    def handle(self, *args, **options):
        if not shutil.which("wrk"):
            raise CommandError("wrk is not installed (apt-get install -y wrk).")
        if "redis" in options["cache"] and not os.environ.get("BENCH_REDIS_URL"):
            raise CommandError("--cache redis needs BENCH_REDIS_URL (redis://127.0.0.1:6379/0).")
        PagesCommand()._prepare({**options, "only": None, "no_wrk": False})
        paths = mix_paths(options["mix"])
        slugs = [path.rstrip("/").rsplit("/", 1)[-1] for path in paths if "/notes/" in path]
        static_path, _body = write_yardstick(paths[5])
        script = lua_script(paths, options["skew"], settings.STATIC_ROOT)
        load_before = _load()
        rows, memory = [], {}
        for number, cache in enumerate(options["cache"]):
            env = {"BIJI_PAGE_CACHE_SECONDS": str(settings.BIJI_PAGE_CACHE_SECONDS)}
            if cache == "redis":
                env["REDIS_URL"] = os.environ["BENCH_REDIS_URL"]
                env["CACHE_KEY_PREFIX"] = f"biji-bench-{uuid.uuid4().hex[:8]}"
            with Server(options["port"] + number, options["workers"], env) as server:
                self.stdout.write(f"{cache}: warming the mix of {len(paths)} pages…")
                self._wrk(server, options, script, options["warm"])
                static = self._wrk(server, options, None, options["duration"], static_path)
                warm = self._wrk(server, options, script, options["duration"])
                memory[cache] = worker_memory(server)
                rows.append((f"static file (note page), {cache} run", static, static, None))
                rows.append((f"{cache}, mix warm", warm, static, None))
                for every in options["edit_every"]:
                    editor = Editor(slugs, every, options["seed"])
                    editor.start()
                    try:
                        edited = self._wrk(server, options, script, options["duration"])
                    finally:
                        editor.stop()
                    rows.append((f"{cache}, an edit every {every:g} s", edited, static, warm))
        self._report(rows, memory, paths, options, load_before)

    def _wrk(self, server, options, script, seconds, path="/"):
        result = run_wrk(server, path, options, script=script, seconds=seconds)
        self.stdout.write(f"  {result['rate']:.0f} req/s ({'mix' if script else path})")
        return result

    def _report(self, rows, memory, paths, options, load_before):
        count = Note.objects.count()
        self.stdout.write(
            f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · {connection.vendor}, {count} notes · "
            f"gunicorn {options['workers']} sync workers · wrk -t{options['threads']} "
            f"-c{options['connections']} -d{options['duration']}s · mix of {len(paths)} pages, "
            f"Zipf s={options['skew']:g} · load average {load_before} before, {_load()} after\n"
        )
        self.stdout.write("| setup | req/s | p99 ms | % of static | % of warm mix |")
        self.stdout.write("|---|---:|---:|---:|---:|")
        for name, result, static, warm in rows:
            share = 100 * result["rate"] / static["rate"] if static["rate"] else 0
            of_warm = f"{100 * result['rate'] / warm['rate']:.0f}%" if warm else ""
            errors = f" ({result['errors']} errors)" if result["errors"] else ""
            self.stdout.write(
                f"| {name}{errors} | {result['rate']:,.0f} | {result['p99']:.1f} | "
                f"{share:.0f}% | {of_warm} |"
            )
        for cache, sizes in memory.items():
            listed = ", ".join(f"{size:.0f}" for size in sizes)
            self.stdout.write(f"\nWorker memory ({cache}, after the warm mix): {listed} MB")


def _names(text):
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = set(names) - {"embedded", "redis"}
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown cache setup: {', '.join(sorted(unknown))}")
    return names


def _seconds(text):
    try:
        return tuple(float(value) for value in text.split(",") if value.strip())
    except ValueError:
        raise argparse.ArgumentTypeError("seconds, comma-separated: 5,1") from None


def _load():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])
