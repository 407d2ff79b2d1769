#!/usr/bin/env python3
# ruff: noqa: S603  (runs its own fixed commands: manage.py, gunicorn, wrk, redis-server)
"""Load and faults, as a script (not a timed test): ``make soak`` or
``.venv/bin/python scripts/soak.py [--duration 60] [--connections 64]``.

Starts, all on 127.0.0.1 and in a temporary directory that is removed afterwards:

* a throwaway SQLite database with the demo blog (``migrate`` + ``load_demo``),
* a throwaway ``redis-server`` on a free port (REDIS_URL points at it, so stopping it harms
  nobody else),
* gunicorn with 3 workers,

then runs ``wrk`` (installed with apt-get when missing) against the home page and a note for
``--duration`` seconds while, at fixed fractions of the run:

(a) a worker is killed (SIGKILL; gunicorn starts a new one),
(b) the cache server is stopped, and started again a quarter of the run later,
(c) 20 threads save notes through the ORM (in a separate process).

It prints, per URL: requests, non-2xx answers, socket errors, p50/p99 latency; the worker
memory (RSS) before and after; whether the site answered from the database during the outage;
and the machine's load average. Exit status 1 when errors exceed what the killed worker had
in flight (its connections: at most one request per connection) or the memory of a worker
grew by more than 20%.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"

WRK_LUA = """
done = function(summary, latency, requests)
  io.write(string.format(
    "JSON{\\"requests\\": %d, \\"non2xx\\": %d, \\"connect\\": %d, \\"read\\": %d, "
    .. "\\"write\\": %d, \\"timeout\\": %d, \\"status\\": %d, \\"p50_ms\\": %.2f, "
    .. "\\"p99_ms\\": %.2f, \\"max_ms\\": %.2f}\\n",
    summary.requests, summary.errors.status, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout, summary.errors.status,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
"""

# 20 threads saving notes through the ORM, as authors and imports would.
WRITERS = """
import threading, time
from django.db import close_old_connections, transaction
from blog.models import Note, Tag
deadline = time.monotonic() + {seconds}
ids = list(Note.objects.values_list("pk", flat=True))
saves, errors = [0], []
def writer(i):
    n = 0
    while time.monotonic() < deadline:
        n += 1
        try:
            note = Note.objects.get(pk=ids[(i + n) % len(ids)])
            note.summary = f"Soak edit {{i}}-{{n}}"
            with transaction.atomic():
                note.save()
                note.tags.add(*Tag.objects.resolve(["Soak"]))
            saves[0] += 1
        except Exception as error:
            errors.append(repr(error))
        time.sleep(0.05)
    close_old_connections()
threads = [threading.Thread(target=writer, args=(i,)) for i in range(20)]
[t.start() for t in threads]
[t.join() for t in threads]
print("WRITERS", saves[0], "saves,", len(errors), "failed", sorted(set(errors))[:3])
"""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def ensure_wrk():
    if shutil.which("wrk"):
        return
    print("wrk is missing: installing Debian's package", flush=True)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run([*sudo, "apt-get", "install", "-y", "wrk"], check=True)


def rss_kib(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def worker_pids(master_pid):
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children")
    return [int(pid) for pid in children.read_text().split()]


class Redis:
    def __init__(self, port):
        self.port, self.process = port, None

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL,
        )
        wait_port(self.port)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def manage(env, *args, **kwargs):
    return subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, text=True, **kwargs
    )


def fetch(port, path):
    started = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as response:
            return response.status, time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, time.monotonic() - started
    except OSError:
        return None, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=60, help="seconds of load (60)")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections (64)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (2)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (3)")
    args = parser.parse_args()
    ensure_wrk()

    tmp = Path(tempfile.mkdtemp(prefix="biji-soak-"))
    redis = Redis(free_port())
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
        REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
        MEDIA_ROOT=str(tmp / "media"),
        DJANGO_SECRET_KEY="soak-only-" + os.urandom(8).hex(),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_LOG_LEVEL="ERROR",
    )
    gunicorn = writers = None
    try:
        redis.start()
        manage(env, "migrate", "--noinput", stdout=subprocess.DEVNULL)
        manage(env, "load_demo", stdout=subprocess.DEVNULL)
        manage(env, "collectstatic", "--noinput", stdout=subprocess.DEVNULL)
        gunicorn = subprocess.Popen(
            [GUNICORN, "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
            + ["--workers", str(args.workers), "--log-level", "error", "--timeout", "30"],
            cwd=ROOT,
            env=env,
        )
        wait_port(port)
        note = manage(
            env,
            "shell",
            "-c",
            "from blog.models import Note; "
            "print(Note.objects.published().first().get_absolute_url())",
            capture_output=True,
        ).stdout
        note = next(line for line in note.splitlines() if line.startswith("/"))
        paths = ["/", note]
        for path in paths * 20:  # warm every worker
            fetch(port, path)
        time.sleep(1)
        memory_before = {pid: rss_kib(pid) for pid in worker_pids(gunicorn.pid)}

        script = tmp / "report.lua"
        script.write_text(WRK_LUA)
        per_url = max(1, args.connections // len(paths))
        wrks = [
            subprocess.Popen(
                ["wrk", f"-t{args.threads}", f"-c{per_url}", f"-d{args.duration}s"]
                + ["--timeout", "30s", "-s", str(script), f"http://127.0.0.1:{port}{path}"],
                stdout=subprocess.PIPE,
                text=True,
            )
            for path in paths
        ]
        d = args.duration
        events, probes = [], []

        def at(fraction):
            time.sleep(max(0.0, started + fraction * d - time.monotonic()))

        def probe_during_outage():
            while redis.process is None or redis.process.poll() is None:
                time.sleep(0.05)
            while redis.process.poll() is not None:
                probes.append(fetch(port, "/"))
                time.sleep(0.2)

        started = time.monotonic()
        writers = subprocess.Popen(
            [PYTHON, "manage.py", "shell", "-c", WRITERS.format(seconds=max(1, int(d * 0.6)))],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        events.append((0.0, "20 ORM writer threads start"))
        at(0.2)
        victim = worker_pids(gunicorn.pid)[0]
        os.kill(victim, signal.SIGKILL)
        events.append((time.monotonic() - started, f"killed worker {victim}"))
        at(0.4)
        redis.stop()
        events.append((time.monotonic() - started, "cache server stopped"))
        prober = threading.Thread(target=probe_during_outage, daemon=True)
        prober.start()
        at(0.65)
        redis.start()
        events.append((time.monotonic() - started, "cache server started"))
        results = {}
        for path, wrk in zip(paths, wrks, strict=True):
            out, _ = wrk.communicate(timeout=d + 60)
            line = next(line for line in out.splitlines() if line.startswith("JSON"))
            results[path] = json.loads(line[4:])
        writer_out, _ = writers.communicate(timeout=120)
        time.sleep(1)
        memory_after = {pid: rss_kib(pid) for pid in worker_pids(gunicorn.pid)}
        load = os.getloadavg()
    finally:
        for process in (writers, gunicorn):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        redis.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(f"soak: {args.duration} s, {args.connections} connections, {args.workers} workers")
    for offset, event in events:
        print(f"  t={offset:5.1f} s  {event}")
    print()
    header = f"{'url':<40} {'requests':>9} {'req/s':>8} {'non-2xx':>8} {'sock err':>8}"
    print(header + f" {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    errors = 0
    for path, r in results.items():
        socket_errors = r["connect"] + r["read"] + r["write"] + r["timeout"]
        errors += r["non2xx"] + socket_errors
        print(
            f"{path[:40]:<40} {r['requests']:>9} {r['requests'] / args.duration:>8.0f} "
            f"{r['non2xx']:>8} {socket_errors:>8} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} "
            f"{r['max_ms']:>8.1f}"
        )
    allowed = args.connections  # the killed worker's in-flight requests, at most one each
    print()
    print(f"errors: {errors} (allowed for the killed worker's in-flight requests: ≤ {allowed})")
    outage = [status for status, _seconds in probes]
    print(
        f"during the cache outage: {outage.count(200)}/{len(outage)} probes of / answered 200 "
        f"(slowest {max((s for _st, s in probes), default=0) * 1000:.0f} ms)"
    )
    print(f"writers: {writer_out.strip().splitlines()[-1] if writer_out.strip() else '?'}")
    print()
    grown = False
    print(f"{'worker':>8} {'RSS before':>12} {'RSS after':>12}")
    for pid, before in memory_before.items():
        after = memory_after.get(pid)
        change = f"{(after - before) / before:+.0%}" if after and before else "(killed)"
        grown |= bool(after and before and after > before * 1.2)
        print(f"{pid:>8} {before or 0:>9} KiB {after or 0:>9} KiB  {change}")
    for pid in set(memory_after) - set(memory_before):
        print(f"{pid:>8} {'(new)':>12} {memory_after[pid]:>9} KiB")
    print()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    failed = errors > allowed or grown or outage.count(200) != len(outage)
    print("FAIL" if failed else "OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
