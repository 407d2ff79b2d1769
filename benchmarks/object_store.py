"""An S3 store: the photo journey (upload → variants → card → page) end to end, and backup and
restore carrying the media (issue 36's goal); the same journey on local disk beside it.

    python -m benchmarks objectstore                   # 5 photos of 4000 × 3000
    python -m benchmarks objectstore --photos 2 --no-disk

Starts moto's standalone S3 server (``moto_server``, a dev dependency, on ``--port``; its log,
one line a request, counts the requests to the store) and makes a bucket. Then, on a scratch
SQLite site of its own in a temporary folder (migrated once, a fresh copy per site), never the
database of ``DATABASE_URL``, with real processes, as the author and the operator would:

1. *upload*: ``manage.py shell`` stores ``--photos`` generated photos (:mod:`benchmarks.photos`:
   4000 × 3000 JPEGs of ~3 MB, made beforehand, not timed) through
   :func:`blog.images.uploads.store_image`, what the editor's upload endpoint calls, and
   publishes a note whose Markdown shows them (:func:`benchmarks.photos.publish_photo_note`);
   the time is store_image's;
2. *variants + card*: ``manage.py db_worker --batch`` runs what the upload and the note queued
   (the variants, the pages rendered again, the share card): the command's time, and the span
   from the first task's start to the last one's end as the database recorded them;
3. *page*: ``manage.py shell`` asks the note page of Django's test client twice (first: the
   page rendered; second: from the page cache); every image URL of the page (``src``,
   ``srcset``, ``og:image``…) must point at the store, every object it names must be in the
   bucket (a boto3 listing), and each must answer a reader's GET;
4. *backup*: ``manage.py backup DIR``; 5. *restore*: ``manage.py restore DIR`` into a second
   site on a new, empty bucket; every object of the first bucket must be in the second with the
   same bytes, and the second site's page must name the second bucket.

``--disk`` (the default; ``--no-disk`` leaves it out) does the same steps with ``MEDIA_ROOT``
folders instead of buckets, for comparison. Prints a markdown table with the date, machine,
load average and data size. Not a test: tests/test_object_storage.py holds the gate's case.
"""

import argparse
import html
import importlib.metadata
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import boto3
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from benchmarks import photos
from benchmarks.pages import _cpu_name
from benchmarks.takeover import (
    TASKS_TABLE,
    _utc,
    manage,
    migrate_template,
    migrated_copy,
    query,
    site_environment,
)
from benchmarks.traffic import _load

# moto takes any credentials; boto3 (and biji's storage through it) wants some.
ACCESS_KEY, SECRET_KEY, REGION = "biji-bench", "biji-bench", "us-east-1"
IMAGE_URL = re.compile(r"\.(?:jpe?g|png|webp|avif|gif)$", re.IGNORECASE)
# A request in moto's log (werkzeug's): "GET /bucket/key HTTP/1.1" 200, coloured when not 2xx.
REQUEST_LINE = re.compile(r'"(?:\x1b\[[0-9;]*m)*([A-Z]+) /[^"]*" (\d{3}) ')
PHASES = ("upload", "variants + card", "page", "backup", "restore")

UPLOAD = """
import json, time
from pathlib import Path
from django.core.files.uploadedfile import SimpleUploadedFile
from benchmarks.photos import PARAGRAPH, publish_photo_note
from blog.images.uploads import store_image
files = sorted(Path(ARGUMENT).glob("*.jpg"))
blocks, names, seconds = ["Photos as they were uploaded, 4000 x 3000 each."], [], 0.0
for number, path in enumerate(files):
    upload = SimpleUploadedFile(path.name, path.read_bytes(), "image/jpeg")
    started = time.perf_counter()
    stored = store_image(upload)
    seconds += time.perf_counter() - started
    names.append(stored.name)
    blocks += [f"## Photo {number + 1}", PARAGRAPH, f"![Photo {number + 1}]({stored.url})"]
note = publish_photo_note("\\n\\n".join(blocks) + "\\n", slug="object-store-journey")
print(json.dumps({"seconds": seconds, "names": names, "url": note.get_absolute_url()}))
"""

# After the worker: the variants of each upload and the note's card, by their storage names.
MADE = """
import json
from blog.models import ImageFile, Note
note = Note.objects.get(slug="object-store-journey")
variants = [v["name"] for f in ImageFile.objects.order_by("name") for v in (f.variants or [])]
print(json.dumps({"variants": variants, "card": note.card or ""}))
"""

PAGE = """
import json, time
from pathlib import Path
from django.test import Client
from blog.models import Note
url = Note.objects.get(slug="object-store-journey").get_absolute_url()
client, times = Client(), []
for _ in range(2):
    started = time.perf_counter()
    response = client.get(url)
    times.append(time.perf_counter() - started)
    assert response.status_code == 200, response.status_code
Path(ARGUMENT).write_bytes(response.content)
print(json.dumps({"first": times[0], "second": times[1]}))
"""


def shell(env, code, argument=None):
    """What ``code`` prints as its last line, JSON, run by ``manage.py shell`` in ``env`` with
    ``ARGUMENT`` set to ``argument`` (a path)."""
    output = manage(env, "shell", "-v", "0", "-c", f"ARGUMENT = {str(argument)!r}\n{code}")
    return json.loads(output.strip().splitlines()[-1])


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (local server)
            return response.status == 200
    except OSError:
        return False


class MotoServer:
    """moto's standalone S3 server on ``port``, its log in ``log``, for a ``with`` block."""

    def __init__(self, port, log):
        self.port, self.log_path = port, Path(log)
        self.url = f"http://127.0.0.1:{port}"
        self.process = None
        self.client = boto3.client(
            "s3",
            endpoint_url=self.url,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
        )

    def __enter__(self):
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(  # noqa: S603 (the venv's moto_server)
                [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1"]
                + ["-p", str(self.port)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while not _answers(self.url):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise CommandError(
                    f"moto_server did not start: {self.log_path.read_text()[-2000:]}"
                )
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def requests(self):
        """Requests the server has logged so far, by (method, status)."""
        time.sleep(0.1)  # its last lines written
        return Counter(REQUEST_LINE.findall(self.log_path.read_text(errors="replace")))

    def new_bucket(self):
        """A new, empty bucket that anyone may read, as docs/deployment.md asks of a site's."""
        name = f"biji-bench-{uuid.uuid4().hex[:12]}"
        self.client.create_bucket(Bucket=name)
        readable = {
            "Effect": "Allow",
            "Principal": "*",
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{name}/*",
        }
        policy = {"Version": "2012-10-17", "Statement": [readable]}
        self.client.put_bucket_policy(Bucket=name, Policy=json.dumps(policy))
        return name

    def objects(self, bucket):
        """{key: size} of every object in ``bucket``."""
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return {entry["Key"]: entry["Size"] for page in pages for entry in page.get("Contents", ())}

    def read(self, bucket, key):
        return self.client.get_object(Bucket=bucket, Key=key)["Body"].read()


class Store:
    """Where a site's media are, and how to look at them without biji's code: a bucket of the
    moto server, or a folder (``server`` None)."""

    def __init__(self, server, place):
        self.server, self.place = server, place

    @property
    def name(self):
        return "S3 (moto)" if self.server else "local disk"

    def environment(self):
        if not self.server:
            return {"MEDIA_ROOT": str(self.place)}
        return {
            "MEDIA_S3_BUCKET": self.place,
            "MEDIA_S3_ENDPOINT_URL": self.server.url,
            "MEDIA_S3_REGION": REGION,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        }

    @property
    def base(self):
        """What every media URL of a page starts with."""
        return f"{self.server.url}/{self.place}/" if self.server else settings.MEDIA_URL

    def objects(self):
        if self.server:
            return self.server.objects(self.place)
        root = Path(self.place)
        if not root.exists():
            return {}
        return {
            str(path.relative_to(root)): path.stat().st_size
            for path in root.rglob("*")
            if path.is_file()
        }

    def read(self, key):
        if self.server:
            return self.server.read(self.place, key)
        return (Path(self.place) / key).read_bytes()

    def requests(self):
        return self.server.requests() if self.server else None

    def key(self, url):
        """The object a page's ``url`` names, None if it is not in this store's."""
        if self.server:
            return url.removeprefix(self.base) if url.startswith(self.base) else None
        path = url.removeprefix(settings.SITE_URL)  # absolute URLs (og:image) name the site
        return path.removeprefix(self.base) if path.startswith(self.base) else None

    def reader_gets(self, url):
        """Whether a reader's GET of ``url`` (a page's media URL) answers 200; on disk, which
        the proxy serves, whether the file is there."""
        if self.server:
            return _answers(url)
        return (Path(self.place) / self.key(url)).is_file()


class Journey:
    """The photo journey of one site on ``store``, then its backup restored onto ``second``."""

    def __init__(self, folder, template, photo_folder, store, second):
        self.folder, self.photo_folder = folder, photo_folder
        self.store, self.second = store, second
        folder.mkdir()
        self.database = folder / "a.sqlite3"
        migrated_copy(template, self.database)
        self.env = site_environment(
            self.database, folder / "a-media", **store.environment(), DJANGO_LOG_LEVEL="ERROR"
        )
        self.seconds, self.requests, self.notes, self.checks = {}, {}, {}, []

    def phase(self, name, run):
        """Run ``run()``; keep its seconds (its own figure if it returns one, else the wall
        time) and the requests the store logged meanwhile."""
        before, started = self.store.requests(), time.perf_counter()
        figure = run()
        self.seconds[name] = figure if figure is not None else time.perf_counter() - started
        if before is not None:
            self.requests[name] = self.store.requests() - before  # by (method, status)
        return figure

    def check(self, what, ok):
        self.checks.append((what, bool(ok)))

    def run(self):
        uploaded = {}

        def upload():
            uploaded.update(shell(self.env, UPLOAD, self.photo_folder))
            return uploaded["seconds"]

        self.phase("upload", upload)
        self.check(
            "every upload in the store",
            set(uploaded["names"]) <= set(self.store.objects()) and uploaded["names"],
        )

        self.phase("variants + card", self.run_worker)
        made = shell(self.env, MADE)
        objects = self.store.objects()
        self.check(
            f"{len(made['variants'])} variants and the card made, all in the store",
            made["variants"]
            and made["card"]
            and set(made["variants"]) | {made["card"]} <= set(objects),
        )
        self.after_journey = objects

        page_file = self.folder / "page.html"
        timings = {}

        def page():
            timings.update(shell(self.env, PAGE, page_file))
            return timings["first"]

        self.phase("page", page)
        self.notes["page, second request (cached)"] = timings["second"]
        self.check_page(page_file.read_text(), self.store, made)

        backup = self.folder / "backup"
        self.phase("backup", lambda: _wall_time(manage(self.env, "backup", str(backup))))
        manifest = json.loads((backup / "manifest.json").read_text())
        self.check(
            f"the backup holds every object ({len(manifest['media'])} media files)",
            set(manifest["media"]) == set(objects),
        )
        self.backup_bytes = sum(p.stat().st_size for p in backup.rglob("*") if p.is_file())

        target = site_environment(
            self.folder / "b.sqlite3",
            self.folder / "b-media",
            **self.second.environment(),
            DJANGO_LOG_LEVEL="ERROR",
        )
        self.phase("restore", lambda: _wall_time(manage(target, "restore", str(backup))))
        restored = self.second.objects()
        same = [
            key
            for key in objects
            if key in restored and self.second.read(key) == self.store.read(key)
        ]
        self.check(
            f"restored: {len(same)} of {len(objects)} objects, the same bytes",
            len(same) == len(objects) == len(restored),
        )
        restored_page = self.folder / "b-page.html"
        shell(target, PAGE, restored_page)
        self.check_page(restored_page.read_text(), self.second, None, "the restored site's ")
        if self.store.server:
            self.check(
                "nothing written to the disk's media folders",
                not (self.folder / "a-media").exists() and not (self.folder / "b-media").exists(),
            )
        return self

    def run_worker(self):
        manage(
            self.env,
            "db_worker",
            "--batch",
            "--no-startup-delay",
            "--no-reload",
            "--verbosity",
            "0",
            timeout=900,
        )
        rows = query(
            self.database,
            f"SELECT status, task_path, started_at, finished_at FROM {TASKS_TABLE}",  # noqa: S608
        )
        self.tasks = rows
        if any(status != "SUCCESSFUL" for status, *_ in rows):
            raise CommandError(f"tasks not successful: {rows}")
        spans = [(_utc(start), _utc(end)) for _s, _p, start, end in rows if start and end]
        if spans:
            self.notes["variants + card, the tasks' own span"] = max(e for _s, e in spans) - min(
                s for s, _e in spans
            )
        return None

    def check_page(self, page, store, made, whose=""):
        urls = media_urls(page)
        stray = [url for url in urls if store.key(url) is None]
        keys = {store.key(url) for url in urls} - {None}
        objects = store.objects()
        self.check(
            f"{whose}page: {len(urls)} image URLs ({len(keys)} objects), all at {store.base}"
            + (f" (not: {stray[:3]})" if stray else ""),
            urls and not stray,
        )
        self.check(f"{whose}page: every object it names is in the store", keys <= set(objects))
        if made is not None:
            shown = set(made["variants"]) & keys
            self.check(
                f"{whose}page: shows {len(shown)} of the {len(made['variants'])} variants, and "
                "the share card (og:image)",
                shown and made["card"] in keys,
            )
        answered = sum(store.reader_gets(url) for url in urls)
        self.check(
            f"{whose}page: a reader's GET answers for {answered} of {len(urls)} URLs",
            answered == len(urls),
        )


def media_urls(page):
    """The image URLs of ``page`` (src, srcset, content, href), static files left out."""
    found = []
    for attribute, value in re.findall(r'\b(src|srcset|content|href)="([^"]*)"', page):
        values = value.split(",") if attribute == "srcset" else [value]
        for candidate in values:
            url = html.unescape(candidate.strip().split(" ")[0]) if candidate.strip() else ""
            if IMAGE_URL.search(url) and not url.startswith(settings.STATIC_URL):
                found.append(url)
    return sorted(set(found))


def _wall_time(_output):
    """None: the phase's figure is its wall time."""
    return None


def _methods(counts):
    """``12: GET 4, HEAD 8 (8 × 404)`` of a Counter of (method, status)."""
    methods = {}
    for (method, status), count in sorted(counts.items()):
        total, odd = methods.get(method, (0, []))
        if not status.startswith("2"):
            odd = [*odd, f"{count} × {status}"]
        methods[method] = (total + count, odd)
    detail = ", ".join(
        f"{method} {total}" + (f" ({', '.join(odd)})" if odd else "")
        for method, (total, odd) in methods.items()
    )
    return f"{counts.total()}" + (f": {detail}" if detail else "")


def _size(count):
    return f"{count / 1e6:.1f} MB"


class Command(BaseCommand):
    help = "The photo journey and backup/restore on an S3 server (moto), and on local disk."

    def add_arguments(self, parser):
        parser.add_argument("--photos", type=int, default=photos.PHOTOS)
        parser.add_argument("--port", type=int, default=0, help="moto_server's (default: free)")
        parser.add_argument(
            "--disk",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="the same journey on local disk, for comparison (default: yes)",
        )

    def handle(self, *args, **options):
        load_before = _load()
        folder = Path(tempfile.mkdtemp(prefix="biji-objectstore-"))
        try:
            self.stdout.write(f"making {options['photos']} photos of 4000 × 3000…")
            photo_folder = folder / "photos"
            photo_folder.mkdir()
            for number in range(options["photos"]):
                (photo_folder / f"DSC_{number:04d}.jpg").write_bytes(photos.jpeg(2300 + number))
            photo_bytes = sum(p.stat().st_size for p in photo_folder.iterdir())
            template = migrate_template(folder)
            started = time.perf_counter()
            manage(site_environment(template, folder / "x"), "shell", "-c", "pass")
            startup = time.perf_counter() - started
            port = options["port"] or _free_port()
            journeys = {}
            with MotoServer(port, folder / "moto.log") as server:
                self.stdout.write(f"the journey on moto_server {server.url}…")
                store = Store(server, server.new_bucket())
                second = Store(server, server.new_bucket())
                journeys["s3"] = Journey(folder / "s3", template, photo_folder, store, second).run()
                total_requests = server.requests()
            if options["disk"]:
                self.stdout.write("the journey on local disk…")
                journeys["disk"] = Journey(
                    folder / "disk",
                    template,
                    photo_folder,
                    Store(None, folder / "disk-media-a"),
                    Store(None, folder / "disk-media-b"),
                ).run()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        self._report(journeys, options, photo_bytes, startup, total_requests, load_before)

    def _report(self, journeys, options, photo_bytes, startup, total_requests, load_before):
        out = self.stdout.write
        s3 = journeys["s3"]
        disk = journeys.get("disk")
        version = importlib.metadata.version
        out(
            f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · Python {platform.python_version()} · "
            f"moto_server {version('moto')}, django-storages {version('django-storages')} · "
            f"a scratch SQLite site, {options['photos']} photos of 4000 × 3000 "
            f"({_size(photo_bytes)}) · a manage.py process starts in {startup:.2f} s · load "
            f"average {load_before} before, {_load()} after\n"
        )
        out("| phase | S3 (moto) s | requests to the store | local disk s | how |")
        out("|---|---:|---:|---:|---|")
        how = {
            "upload": "store_image × photos, in one manage.py shell (its own time)",
            "variants + card": "manage.py db_worker --batch (the command's time)",
            "page": "the note page, first request (Django test client)",
            "backup": "manage.py backup DIR (the command's time)",
            "restore": "manage.py restore DIR, a second site, an empty bucket (command)",
        }
        for name in PHASES:
            local = f"{disk.seconds[name]:.2f}" if disk else "–"
            out(
                f"| {name} | {s3.seconds[name]:.2f} | {_methods(s3.requests[name])} | {local} | "
                f"{how[name]} |"
            )
        for name in s3.notes:
            local = f"{disk.notes.get(name, float('nan')):.3f}" if disk else "–"
            out(f"| {name} | {s3.notes[name]:.3f} | | {local} | |")
        out("")
        for label, journey in journeys.items():
            objects = journey.after_journey
            kinds = {}
            for key, size in objects.items():
                kind = key.split("/", 1)[0]
                count, total = kinds.get(kind, (0, 0))
                kinds[kind] = (count + 1, total + size)
            detail = ", ".join(
                f"{kind}/ {count} ({_size(total)})"
                for kind, (count, total) in sorted(kinds.items())
            )
            out(
                f"{journey.store.name}: {len(objects)} objects, {_size(sum(objects.values()))} "
                f"after the journey ({detail}); {len(journey.tasks)} tasks run; backup folder "
                f"{_size(journey.backup_bytes)}"
                + (f"; {_methods(total_requests)} requests in all" if label == "s3" else "")
            )
            for what, ok in journey.checks:
                out(f"- {'ok' if ok else 'FAILED'}: {what}")
        failed = [what for journey in journeys.values() for what, ok in journey.checks if not ok]
        if failed:
            raise CommandError(f"{len(failed)} checks failed: {failed}")
