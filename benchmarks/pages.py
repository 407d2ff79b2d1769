"""Measure public pages under gunicorn with wrk: cold, warm and conditional, against static.

    make bench-pages                       # scripts/bench_pages.sh: 10,000 notes, SQLite
    DATABASE_URL=sqlite:////tmp/biji-pages.sqlite3 STATIC_ROOT=/tmp/biji-pages-static \\
        DJANGO_SECRET_KEY=bench python -m benchmarks pages --notes 1000

Runs on the database of ``DATABASE_URL`` (a scratch one: a database holding notes this
benchmark did not make is refused without ``--force``): migrates it, fills it once with
``--notes`` generated notes (:mod:`benchmarks.data`; later runs reuse them), then

1. in this process, for every page: SQL queries on a cold request (page cache off, caches
   emptied), on a warm one (page cache on) and on a conditional one (``If-None-Match``), and
   the median time of a cold request with its SQL part;
2. writes the note page, as served, into ``STATIC_ROOT`` (plus its ``.gz``): the yardstick,
   a static file of the note page's size served by whitenoise under the same gunicorn;
3. starts gunicorn (``--workers``, 127.0.0.1:``--port``) with the page cache off and runs wrk
   (Debian's; ``scripts/bench_pages.sh`` installs it) on every page and on the static file;
   then again with the page cache on, plain (warm) and with ``If-None-Match`` (conditional);
4. measures step 1 again on a blog of ``--baseline-notes`` notes (1,000; 0 skips it) in a
   database of its own (for SQLite, a file beside this one; otherwise
   ``--baseline-database-url``), in a child process, so each page's SQL time can be compared
   at the two sizes;
5. prints a markdown table: req/s, p50 and p99 latency, bytes on the wire (gzip, as browsers
   ask), queries, single-request SQL time at both sizes, and each rate as a share of the
   static file's in the same server run, with the date, machine and load average. Not a
   test: numbers depend on the machine and on what else it runs.

``--pages a,b`` (or ``--only``) keeps some pages (names as in the table). ``--without
fragments,memos`` switches caching mechanisms off (:mod:`benchmarks.switches`): in this
process for steps 1 and 4, and under gunicorn by serving ``benchmarks.without:application``;
the table's header line names them. ``python -m benchmarks mechanisms``
(:mod:`benchmarks.mechanisms`) compares every mechanism off against all on.
"""

import argparse
import gzip
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test import Client, override_settings

from benchmarks import data as benchdata
from benchmarks import switches
from blog.models import Note

STATIC_NAME = "bench/note.html"
STATIC_ROW = "static file (note page)"
MODES = ("cold", "warm", "conditional")


class QueryCounter:
    """Counts and times the SQL run while it is installed (``connection.execute_wrapper``)."""

    def __init__(self):
        self.count, self.seconds = 0, 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.count += 1
            self.seconds += time.perf_counter() - started


def counted(function):
    counter = QueryCounter()
    with connection.execute_wrapper(counter):
        result = function()
    return counter, result


def _percent(value, static):
    return f"{100 * value / static:.0f}%" if static else "n/a"


def _ms(text):
    """wrk's '1.23ms' / '450.00us' / '1.02s' in milliseconds."""
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text.strip())
    if not match:
        return float("nan")
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def parse_wrk(output):
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", output, re.M)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return {
        "rate": float(rate.group(1)) if rate else 0.0,
        "p50": _ms(p50.group(1)) if p50 else float("nan"),
        "p99": _ms(p99.group(1)) if p99 else float("nan"),
        "errors": int(non2xx.group(1)) if non2xx else 0,
    }


class Server:
    """gunicorn on 127.0.0.1:port with the given extra environment, for a ``with`` block."""

    def __init__(self, port, workers, env, app="config.wsgi:application"):
        self.port, self.workers, self.env, self.app = port, workers, env, app

    def __enter__(self):
        try:  # another server on the port would be measured instead of ours
            urllib.request.urlopen(self.url("/robots.txt"), timeout=2)  # noqa: S310
        except (TimeoutError, urllib.error.URLError, ConnectionError):
            pass
        else:
            raise CommandError(f"127.0.0.1:{self.port} is already in use")
        command = [sys.executable, "-m", "gunicorn", self.app]
        command += ["--workers", str(self.workers), "--bind", f"127.0.0.1:{self.port}"]
        command += ["--log-level", "warning"]
        self.process = subprocess.Popen(  # noqa: S603 (fixed arguments)
            command, cwd=settings.BASE_DIR, env={**os.environ, **self.env}
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url("/robots.txt"), timeout=2).read()  # noqa: S310
                return self
            except (TimeoutError, urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        self.__exit__()
        raise CommandError("gunicorn did not start within 30 s")

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def fetch(self, path, **headers):
        request = urllib.request.Request(  # noqa: S310 (our own server)
            self.url(path), headers={"Accept-Encoding": "gzip", **headers}
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()
        except (TimeoutError, urllib.error.URLError):
            return 0, {}, b""


def mechanism_names(text):
    """An argparse type: ``"fragments,memos"`` → ``("fragments", "memos")``."""
    try:
        return switches.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run_wrk(server, path, options, headers=(), script=None, seconds=None):
    """wrk on ``path`` (with a Lua ``script``: the paths it asks for) for ``seconds`` (default:
    ``--duration``), as browsers ask (gzip); its parsed results."""
    command = ["wrk", f"-t{options['threads']}", f"-c{options['connections']}"]
    command += [f"-d{seconds or options['duration']}s", "--latency", "-H", "Accept-Encoding: gzip"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", str(script)]
    command.append(server.url(path))
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    return parse_wrk(done.stdout)


def add_data_and_server_arguments(parser):
    """The data, server and wrk options (shared with :mod:`benchmarks.traffic`)."""
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--force", action="store_true", help="use a database with notes")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="wrk -t")
    parser.add_argument("--connections", type=int, default=16, help="wrk -c")
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")


def add_run_arguments(parser):
    """The data, server, wrk and page options (shared with :mod:`benchmarks.mechanisms`)."""
    add_data_and_server_arguments(parser)
    parser.add_argument(
        "--only",
        "--pages",
        dest="only",
        metavar="PAGE[,PAGE…]",
        help="comma-separated page names (default: all)",
    )


class Command(BaseCommand):
    help = "Benchmark public pages (cold, warm, conditional) against a static file with wrk."

    def add_arguments(self, parser):
        add_run_arguments(parser)
        parser.add_argument("--no-wrk", action="store_true", help="queries and timings only")
        parser.add_argument(
            "--without",
            type=mechanism_names,
            default=(),
            metavar="NAME[,NAME…]",
            help=f"caching mechanisms to switch off: {', '.join(switches.MECHANISMS)}",
        )
        parser.add_argument(
            "--baseline-notes",
            type=int,
            default=1000,
            help="also time single requests on a blog of this size (0: don't)",
        )
        parser.add_argument(
            "--baseline-database-url", help="its database (default: a SQLite file beside this)"
        )
        parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args, **options):
        rows = self._prepare(options)
        with switches.switched_off(options["without"]):
            self._measure_in_process(rows)
        if options["json"]:  # a baseline run's answer to its parent (_baseline)
            fields = ("ms", "sql_ms", "queries")
            answer = {name: {f: row[f] for f in fields} for name, row in rows.items()}
            self.stdout.write(json.dumps(answer))
            return
        if options["baseline_notes"]:
            for name, measured in self._baseline(options).items():
                if name in rows:
                    rows[name]["baseline"] = measured
        self._add_yardstick(rows)
        if not options["no_wrk"]:
            self._run_wrk(rows, options)
        self._report(rows, options)

    def _prepare(self, options):
        """The database migrated and filled, static files collected: ``{page name: row}``."""
        if not options.get("no_wrk") and not shutil.which("wrk"):
            raise CommandError("wrk is not installed (apt-get install -y wrk).")
        call_command("migrate", verbosity=0, interactive=False)
        notes = Note.objects.all()
        prefix = benchdata.SLUG_PREFIX
        if notes.exclude(slug__startswith=prefix).exists() and not options["force"]:
            raise CommandError(
                f"{settings.DATABASES['default']['NAME']} holds notes this benchmark did not "
                "make; refusing to touch them. Point DATABASE_URL at a scratch database."
            )
        if (
            options["regenerate"]
            or notes.filter(slug__startswith=prefix).count() != options["notes"]
        ):
            started = time.perf_counter()
            published = benchdata.generate(options["notes"], options["seed"])
            took = time.perf_counter() - started
            self.stdout.write(
                f"Generated {options['notes']} notes ({published} published) in {took:.0f} s."
            )
        call_command("collectstatic", interactive=False, verbosity=0)

        pages = benchdata.sample_urls()
        if options["only"]:
            wanted = {name.strip() for name in options["only"].split(",")}
            pages = {name: url for name, url in pages.items() if name in wanted}
        return {name: {"url": url} for name, url in pages.items()}

    # In this process: queries and single-request times.

    def _measure_in_process(self, rows):
        client = Client(HTTP_ACCEPT_ENCODING="gzip", HTTP_HOST="127.0.0.1")
        for row in rows.values():
            url = row["url"]
            with override_settings(BIJI_PAGE_CACHE_SECONDS=0):
                self._clear_caches()
                cold, response = counted(lambda url=url: client.get(url))
                row["status"] = response.status_code
                row["bytes"] = len(response.content)
                samples, sql = [], []
                for _ in range(7):
                    started = time.perf_counter()
                    queries, _response = counted(lambda url=url: client.get(url))
                    samples.append((time.perf_counter() - started) * 1000)
                    sql.append(queries.seconds * 1000)
            row["ms"], row["sql_ms"] = statistics.median(samples), statistics.median(sql)
            client.get(url)  # page cache on: stored
            warm, response = counted(lambda url=url: client.get(url))
            etag = response.get("ETag", "")
            conditional, answer = counted(
                lambda url=url, etag=etag: client.get(url, HTTP_IF_NONE_MATCH=etag)
            )
            row["etag"] = etag
            row["queries"] = (cold.count, warm.count, conditional.count)
            row["conditional_status"] = answer.status_code

    def _baseline(self, options):
        """Step 1 on a blog of ``--baseline-notes`` notes, in a child process on its own
        database: ``{page name: {"ms", "sql_ms", "queries"}}``."""
        count = options["baseline_notes"]
        database_url = options["baseline_database_url"]
        if not database_url:
            if connection.vendor != "sqlite":
                raise CommandError("Give --baseline-database-url (or --baseline-notes 0).")
            name = Path(settings.DATABASES["default"]["NAME"])
            database_url = f"sqlite:///{name.with_name(f'{name.stem}-{count}{name.suffix}')}"
        self.stdout.write(f"Baseline: {count} notes…")
        command = [sys.executable, "-m", "benchmarks", "pages", "--json", "--no-wrk"]
        command += ["--notes", str(count), "--seed", str(options["seed"]), "--baseline-notes", "0"]
        if options["only"]:
            command += ["--only", options["only"]]
        if options["without"]:
            command += ["--without", ",".join(options["without"])]
        done = subprocess.run(  # noqa: S603 (our own command)
            command,
            cwd=settings.BASE_DIR,
            env={**os.environ, "DATABASE_URL": database_url},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise CommandError(f"The baseline run failed:\n{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def _clear_caches(self):
        # Only ever a local-memory cache (scripts/bench_pages.sh unsets REDIS_URL): clear() on
        # a shared Redis would be FLUSHDB of everybody's keys.
        for alias, options in settings.CACHES.items():
            if not options["BACKEND"].endswith("LocMemCache"):
                raise CommandError(f"The benchmark empties its caches: cache {alias!r} must be "
                                   "local memory (unset REDIS_URL).")  # fmt: skip
            caches[alias].clear()

    def _add_yardstick(self, rows):
        """The static-file row: the note page's bytes served by WhiteNoise, the speed to beat."""
        static_path, body = write_yardstick(benchdata.sample_urls()["note"])
        rows["static file (note page)"] = {
            "url": static_path,
            "static": True,
            "wire_bytes": len(gzip.compress(body)),
        }

    # Under gunicorn, with wrk.

    def _run_wrk(self, rows, options):
        port, workers = options["port"], options["workers"]
        env, app = {}, "config.wsgi:application"
        if options.get("without"):
            env = {switches.ENV: ",".join(options["without"])}
            app = "benchmarks.without:application"
        with Server(port, workers, {**env, "BIJI_PAGE_CACHE_SECONDS": "0"}, app) as server:
            self._block(server, rows, "cold", options)
        with Server(port + 1, workers, env, app) as server:  # the first may still hold its port
            self._block(server, rows, "warm", options)
            self._block(server, rows, "conditional", options)

    def _block(self, server, rows, mode, options):
        self.stdout.write(f"wrk: {mode}…")
        for name, row in rows.items():
            if row.get("status", 200) != 200 and not row.get("static"):
                continue
            headers = []
            if mode == "conditional":
                if row.get("static"):
                    _status, response_headers, _body = server.fetch(row["url"])
                    etag = response_headers.get("ETag", "")
                else:
                    etag = row.get("etag", "")
                headers.append(f"If-None-Match: {etag}")
            for _ in range(1 if mode == "cold" else 4 * options["workers"]):  # every worker's copy
                server.fetch(row["url"])
            row[mode] = run_wrk(server, row["url"], options, headers)
            self.stdout.write(f"  {name}: {row[mode]['rate']:.0f} req/s")

    # The table.

    def _header(self, options):
        """The run's line: date, machine, data, cache, server and wrk."""
        cpu = _cpu_name()
        vendor = connection.vendor
        count = Note.objects.count()
        published = Note.objects.published().count()
        cache = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
        return (
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {cpu}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · Python {platform.python_version()} · "
            f"{vendor}, {count} notes ({published} published) · cache {cache} · gunicorn "
            f"{options['workers']} sync workers · wrk -t{options['threads']} "
            f"-c{options['connections']} -d{options['duration']}s, Accept-Encoding: gzip"
        )

    def _report(self, rows, options):
        static = rows[STATIC_ROW]
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        count = Note.objects.count()
        out = self.stdout.write
        out("")
        header = self._header(options)
        if options["without"]:
            header += f" · without: {', '.join(options['without'])} (benchmarks.without)"
        out(header)
        out("")
        baseline = options["baseline_notes"]
        head = "| page | bytes | queries cold/warm/304 | 1 request ms (SQL) |"
        rule = "|---|---:|---|---:|"
        if baseline:
            head += f" SQL ms {baseline:,} → {count:,} notes |"
            rule += "---:|"
        for mode in MODES:
            head += f" {mode} req/s | % static | p50 / p99 ms |"
            rule += "---:|---:|---:|"
        out(head)
        out(rule)
        for name, row in rows.items():
            if row.get("static"):
                line = f"| {name} | {row.get('wire_bytes', 0):,} | – | – |"
                line += " – |" if baseline else ""
            else:
                queries = "/".join(str(q) for q in row["queries"])
                if row["status"] != 200:
                    queries += f" (HTTP {row['status']})"
                line = (
                    f"| {name} | {row['bytes']:,} | {queries} | "
                    f"{row['ms']:.1f} ({row['sql_ms']:.1f}) |"
                )
                if baseline:
                    line += f" {_growth(row.get('baseline'), row)} |"
            for mode in MODES:
                result = row.get(mode)
                if result is None:
                    line += " – | – | – |"
                    continue
                share = _percent(result["rate"], static.get(mode, {}).get("rate"))
                latency = f"{result['p50']:.1f} / {result['p99']:.1f}"
                line += f" {result['rate']:,.0f} | {share} | {latency} |"
            out(line)
        out("")
        out(f"Load average after the run: {load}.")


def write_yardstick(note_url):
    """The note page's bytes (and their .gz) as a static file for WhiteNoise to serve: the
    speed to beat. Returns its URL path and the bytes."""
    body = Client(HTTP_HOST="127.0.0.1").get(note_url).content
    target = Path(settings.STATIC_ROOT) / STATIC_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    target.with_name(target.name + ".gz").write_bytes(gzip.compress(body))
    return settings.STATIC_URL + STATIC_NAME, body


def _growth(before, after):
    """``"2.1 → 2.4 (1.1×)"``: SQL time of one request at the baseline size, then here."""
    if not before:
        return "–"
    ratio = after["sql_ms"] / before["sql_ms"] if before["sql_ms"] else float("inf")
    return f"{before['sql_ms']:.1f} → {after['sql_ms']:.1f} ({ratio:.1f}×)"


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
