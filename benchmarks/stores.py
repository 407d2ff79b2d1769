"""What a cache read and write cost in each of Django's embedded cache backends, filled as a
blog fills them: why biji's embedded default is each worker's memory (docs/performance.md).

    DATABASE_URL=sqlite:////tmp/biji-stores.sqlite3 DJANGO_SECRET_KEY=bench \\
        python -m benchmarks stores --entries 15000

For local memory, the file-based cache (in a scratch folder) and the database cache (a table of
its own in ``DATABASE_URL``'s database, dropped afterwards): ``--entries`` page-sized entries
(a frozen response of 26 KB, a quarter of it incompressible) are written, timing a write at
every quarter, then ``--reads`` of them are read back at random. Prints a markdown table with
the machine and load average. Not a test.
"""

import os
import platform
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection

from benchmarks.pages import _cpu_name

TABLE = "biji_bench_cache"


def page_entry(rng):
    body = rng.randbytes(6_000) + b"<p>GPU \xe7\xac\x94\xe8\xae\xb0</p>" * 1_000
    return (200, [("Content-Type", "text/html; charset=utf-8")] * 8, body)


class Command(BaseCommand):
    help = "Time writes and reads of page-sized entries in Django's embedded cache backends."

    def add_arguments(self, parser):
        parser.add_argument("--entries", type=int, default=15_000)
        parser.add_argument("--reads", type=int, default=2_000)

    def handle(self, *args, entries, reads, **options):
        rng = random.Random(1)
        value = page_entry(rng)
        folder = tempfile.mkdtemp(prefix="biji-bench-cache-")
        options = {"OPTIONS": {"MAX_ENTRIES": entries * 2}}
        call_command("createcachetable", TABLE, verbosity=0)
        backends = {
            "local memory (LocMemCache)": LocMemCache("bench", options),
            "files (FileBasedCache)": FileBasedCache(folder, options),
            "database (DatabaseCache, same SQLite file)": DatabaseCache(TABLE, options),
        }
        rows = []
        try:
            for name, cache in backends.items():
                self.stdout.write(f"{name}…")
                writes = []
                for number in range(entries):
                    started = time.perf_counter()
                    cache.set(f"page:{number}", value)
                    if number % max(entries // 4, 1) == 0:
                        writes.append((number, (time.perf_counter() - started) * 1000))
                samples = []
                for _ in range(reads):
                    key = f"page:{rng.randrange(entries)}"
                    started = time.perf_counter()
                    cache.get(key)
                    samples.append((time.perf_counter() - started) * 1_000_000)
                rows.append((name, writes, statistics.median(samples)))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            with connection.cursor() as cursor:
                cursor.execute(f"DROP TABLE {connection.ops.quote_name(TABLE)}")
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        self.stdout.write(
            f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · {entries:,} entries of "
            f"{len(value[2]):,} bytes · {connection.vendor} · load average {load}\n"
        )
        heads = " | ".join(f"write of entry {number:,}, ms" for number, _ms in rows[0][1])
        self.stdout.write(f"| backend | {heads} | read µs (median) |")
        self.stdout.write("|---|" + "---:|" * (len(rows[0][1]) + 1))
        for name, writes, read in rows:
            cells = " | ".join(f"{ms:.2f}" for _number, ms in writes)
            self.stdout.write(f"| {name} | {cells} | {read:.0f} |")
