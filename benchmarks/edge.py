"""biji behind a real Varnish (config/varnish/biji.vcl) while the author edits: the goals of
docs/deployment.md's edge.

    make bench-edge                        # 2,000 notes, SQLite, an edit every 5 s
    python -m benchmarks edge --notes 2000 --edit-every 5 --duration 20

On the scratch database of ``DATABASE_URL`` (filled as :mod:`benchmarks.pages` does), starts
gunicorn (``--workers``), one ``db_worker`` polling every second (the purges) and Varnish
(``scripts/start-varnish.sh``), then, all through Varnish, with wrk:

1. the note page's bytes as a static file, kept by Varnish: the yardstick;
2. the mix of :mod:`benchmarks.traffic` (``--mix`` pages of Zipf popularity), warm;
3. the mix while this process edits a note of it every ``--edit-every`` seconds; after each
   edit's commit it asks Varnish for the note every 20 ms until the edit shows: its freshness;
4. an audit once the edits stop and the queue is empty: every page of the mix through Varnish
   against the same page from gunicorn (stale: differ), and responses that must never be kept
   (a signed-in author's, search, the admin, POSTs, share links) asked twice (kept: a hit).

Prints a markdown table with the date, machine, load average and data size.
"""

import os
import platform
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection
from django_tasks_db.models import DBTaskResult

from benchmarks.pages import Command as PagesCommand
from benchmarks.pages import (
    Server,
    _cpu_name,
    add_data_and_server_arguments,
    run_wrk,
    write_yardstick,
)
from benchmarks.traffic import _load, add_mix_arguments, lua_script, mix_paths
from blog.models import Note

MARKER = " edited-for-the-edge-benchmark"


class Varnish:
    """``scripts/start-varnish.sh`` in front of ``backend_port``, for a ``with`` block."""

    def __init__(self, port, backend_port):
        self.port, self.backend_port = port, backend_port
        self.pid_file = Path(settings.BASE_DIR) / "var" / "varnish" / str(port) / "varnishd.pid"

    def __enter__(self):
        subprocess.run(  # noqa: S603 (the project's script, fixed arguments)
            ["bash", "scripts/start-varnish.sh", f"127.0.0.1:{self.backend_port}"]
            + [f"127.0.0.1:{self.port}", "512m"],
            cwd=settings.BASE_DIR,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30  # until its probe finds gunicorn healthy
        while time.monotonic() < deadline:
            if fetch(self.url("/"))[0] == 200:
                return self
            time.sleep(0.2)
        self.__exit__()
        raise CommandError("Varnish did not serve the home page within 30 s")

    def __exit__(self, *exc):
        if self.pid_file.exists():
            subprocess.run(["kill", self.pid_file.read_text().strip()], check=False)  # noqa: S603, S607

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"


def fetch(url, **headers):
    """(status, headers, body) of ``url``; (0, {}, b"") when it cannot be reached."""
    request = urllib.request.Request(url, headers=headers)  # noqa: S310 (local servers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
    except OSError:
        return 0, {}, b""


class Editor(threading.Thread):
    """Edits a note of the mix every ``every`` seconds (as the admin saves it); after each commit,
    asks Varnish for the note until the edit shows, and keeps how long that took."""

    def __init__(self, varnish, slugs, every):
        super().__init__(daemon=True)
        self.varnish, self.slugs, self.every = varnish, slugs, every
        self.stopping = threading.Event()
        self.run_id = uuid.uuid4().hex[:8]
        self.freshness = []  # seconds from each commit to the edge serving it
        self.first_answers = []  # (stale answers before it, X-Edge, Age) of each fresh one
        self.never_fresh = 0  # edits not shown within 30 s
        self.not_kept = 0  # notes Varnish did not keep before their edit (measured anyway)

    def run(self):
        try:
            for number in range(10**6):
                if self.stopping.wait(self.every):
                    return
                slug = self.slugs[number % len(self.slugs)]
                self.kept_at_the_edge(slug)  # so that only a purge can make it fresh
                note = Note.objects.get(slug=slug)
                # A text no earlier run wrote: the page cannot show it before this edit.
                text = f"{MARKER} {self.run_id}-{number}"
                note.body = note.body.split(MARKER)[0] + text
                note.save()  # autocommit: committed when it returns
                self.freshness_of(slug, text.strip(), time.monotonic())
        finally:
            close_old_connections()
            connection.close()

    def kept_at_the_edge(self, slug):
        for _ in range(3):
            if fetch(self.varnish.url(f"/notes/{slug}/"))[1].get("X-Edge") == "hit":
                return
        self.not_kept += 1

    def freshness_of(self, slug, text, committed):
        url, wanted = self.varnish.url(f"/notes/{slug}/"), text.encode()
        stale_seen = 0
        while time.monotonic() - committed < 30:
            status, headers, body = fetch(url)
            if wanted in body:
                self.freshness.append(time.monotonic() - committed)
                self.first_answers.append((stale_seen, headers.get("X-Edge"), headers.get("Age")))
                return
            stale_seen += 1
            time.sleep(0.02)
        self.never_fresh += 1

    def stop(self):
        self.stopping.set()
        self.join()


class Command(BaseCommand):
    help = "Benchmark biji behind Varnish while the author edits: speed, freshness, stale pages."

    def add_arguments(self, parser):
        add_data_and_server_arguments(parser)
        parser.set_defaults(notes=2000, port=8785, duration=20)
        parser.add_argument("--varnish-port", type=int, default=6185)
        add_mix_arguments(parser)
        parser.add_argument("--edit-every", type=float, default=5.0, help="seconds between edits")

    def handle(self, *args, **options):
        for program in ("wrk", "varnishd"):
            if not subprocess.run(["which", program], capture_output=True).returncode == 0:  # noqa: S603, S607
                raise CommandError(f"{program} is not installed (make bench-edge installs both).")
        PagesCommand()._prepare({**options, "only": None, "no_wrk": False})
        paths = mix_paths(options["mix"])
        slugs = [path.rstrip("/").rsplit("/", 1)[-1] for path in paths if "/notes/" in path]
        static_path, _body = write_yardstick(paths[5])
        script = lua_script(paths, options["skew"], settings.STATIC_ROOT)
        load_before = _load()
        env = {
            "BIJI_EDGE_PURGER": "varnish",
            "BIJI_EDGE_PURGE_URLS": f"http://127.0.0.1:{options['varnish_port']}/",
        }
        os.environ.update(env)  # this process's saves queue the purges too
        settings.BIJI_EDGE_PURGER = "varnish"
        settings.BIJI_EDGE_PURGE_URLS = [env["BIJI_EDGE_PURGE_URLS"]]
        worker = subprocess.Popen(  # noqa: S603 (fixed arguments)
            [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "1"],
            cwd=settings.BASE_DIR,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with (
                Server(options["port"], options["workers"], env) as server,
                Varnish(options["varnish_port"], options["port"]) as varnish,
            ):
                edge = EdgeServer(varnish)
                self.stdout.write(f"warming the mix of {len(paths)} pages through Varnish…")
                run_wrk(edge, "/", options, script=script, seconds=options["warm"])
                static = run_wrk(edge, static_path, options)
                warm = run_wrk(edge, "/", options, script=script)
                editor = Editor(varnish, slugs, options["edit_every"])
                editor.start()
                try:
                    edited = run_wrk(edge, "/", options, script=script)
                finally:
                    editor.stop()
                audit = Audit(server, varnish, paths).run()
        finally:
            worker.terminate()
            worker.wait(timeout=30)
        self._report(options, paths, load_before, static, warm, edited, editor, audit)

    def _report(self, options, paths, load_before, static, warm, edited, editor, audit):
        out = self.stdout.write
        out(
            f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · {connection.vendor}, "
            f"{Note.objects.count()} notes · gunicorn {options['workers']} sync workers, one "
            f"db_worker, Varnish {_varnish_version()} · wrk -t{options['threads']} "
            f"-c{options['connections']} -d{options['duration']}s · mix of {len(paths)} pages, "
            f"Zipf s={options['skew']:g} · load average {load_before} before, {_load()} after\n"
        )
        out("| through Varnish | req/s | p99 ms | % of the static file |")
        out("|---|---:|---:|---:|")
        for name, result in (
            ("static file (the note page's bytes)", static),
            ("the mix, warm", warm),
            (f"the mix, an edit every {options['edit_every']:g} s", edited),
        ):
            share = 100 * result["rate"] / static["rate"] if static["rate"] else 0
            errors = f" ({result['errors']} errors)" if result["errors"] else ""
            out(f"| {name}{errors} | {result['rate']:,.0f} | {result['p99']:.1f} | {share:.0f}% |")
        times = sorted(editor.freshness)
        if times:
            out(
                f"\nFreshness of {len(times)} edits (commit → Varnish serves it): median "
                f"{times[len(times) // 2]:.2f} s, slowest {times[-1]:.2f} s"
                + (f"; {editor.never_fresh} never shown within 30 s" if editor.never_fresh else "")
                + (f"; {editor.not_kept} not kept before the edit" if editor.not_kept else "")
            )
            at_once = sum(1 for stale, _edge, _age in editor.first_answers if stale == 0)
            out(
                f"Fresh at the first request after the commit: {at_once} of {len(times)} "
                f"(answers: {sorted(set((e, a) for _s, e, a in editor.first_answers))})"
            )
        out(
            f"After the edits: {audit.stale} stale of {audit.compared} pages compared with "
            f"gunicorn; {audit.kept_private} of {audit.private_asked} private responses kept "
            f"by Varnish."
        )


class EdgeServer:
    """What :func:`benchmarks.pages.run_wrk` needs of a server: its URLs, Varnish's."""

    def __init__(self, varnish):
        self.url = varnish.url


# Responses that must never be kept at the edge, asked twice each: (path, method, headers).
PRIVATE = (
    ("/search/?q=GPU", "GET", {}),
    ("/admin/login/", "GET", {}),
    ("/", "GET", {"Cookie": "sessionid=bench; biji_author=bench"}),
    ("/subscribe/", "POST", {}),
    ("/notes/{slug}/share/made-up-token/", "GET", {}),
)


class Audit:
    """Once the queue is empty: the mix through Varnish against gunicorn, and the private
    responses."""

    def __init__(self, server, varnish, paths):
        self.server, self.varnish, self.paths = server, varnish, paths
        self.stale = self.compared = self.kept_private = self.private_asked = 0

    def run(self):
        deadline = time.monotonic() + 60
        while DBTaskResult.objects.exclude(status__in=["SUCCESSFUL", "FAILED"]).exists():
            if time.monotonic() > deadline:
                raise CommandError("the worker did not empty the queue within 60 s")
            time.sleep(0.2)
        for path in self.paths:
            edge_body = _comparable(fetch(self.varnish.url(path))[2])
            origin_body = _comparable(fetch(self.server.url(path))[2])
            self.compared += 1
            self.stale += edge_body != origin_body
        slug = self.paths[-1].rstrip("/").rsplit("/", 1)[-1]
        for path, method, headers in PRIVATE:
            url = self.varnish.url(path.format(slug=slug))
            for _ in range(2):
                request = urllib.request.Request(url, method=method, headers=headers)  # noqa: S310
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                        edge = response.headers.get("X-Edge")
                except urllib.error.HTTPError as error:
                    edge = error.headers.get("X-Edge")
                self.private_asked += 1
                self.kept_private += edge == "hit"
        return self


def _comparable(body):
    """A page without what differs per response (the CSP nonce)."""
    return re.sub(rb'nonce="[^"]*"', b"", body)


def _varnish_version():
    done = subprocess.run(["varnishd", "-V"], capture_output=True, text=True, check=False)  # noqa: S603, S607
    found = re.search(r"varnish-([\d.]+)", done.stderr + done.stdout)
    return found.group(1) if found else "?"
