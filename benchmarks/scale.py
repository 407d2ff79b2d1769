"""How biji grows: pages, search, related notes, the admin and jobs at 1,000, 10,000 and
100,000 generated notes, on SQLite and on PostgreSQL.

    make bench-scale                                   # both engines, 1,000 / 10,000 / 100,000
    make bench-scale BENCH_ARGS="--sizes 1000,10000"   # the short run
    make bench-scale BENCH_ARGS="--engines sqlite --sizes 1000 --jobs backup,restore"

Each engine and size has a scratch database of its own, made on the first run and reused
(``/tmp/biji-scale-<size>.sqlite3``; ``biji_scale_<size>`` on the PostgreSQL server of
``--postgres-url``, created if missing): :mod:`benchmarks.data` fills it (bulk inserts, the
same blog for the same seed) with :data:`TERMS` glossary terms beside. A child process per
database measures, in process through Django's test client with the embedded cache:

- each page kind cold (page cache off and emptied, the per-version memos warm: the median of
  ``--runs`` requests), warm (page cache on) and conditional (``If-None-Match``: a 304);
- search: every query of the search benchmark (:data:`benchmarks.search.QUERIES`), p50 and p95
  (``--by-query``: each query's median too);
- related notes for 200 published notes (:mod:`blog.public.related`), p50 and p95;
- the admin's note list (first page, each filter, a search), a note's change form, its history;
- jobs, each as ``manage.py`` in a process of its own, with its time and peak memory (the
  largest resident set): re-render every note, rebuild the search index, back up the site,
  restore it into an empty database, export it as Markdown, import 5,000 of its files (one
  run at the import's limit) into another, change a glossary term that ~10% of the notes use
  (the re-render it queues, run as the background runner runs it), draw 1,000 notes' share cards.

Then one table per engine, sizes side by side, with the machine, the date and the load average.
Not a test: the figures depend on the machine and on what else it runs. A database holding
notes this benchmark did not make is refused.
"""

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test import Client, override_settings
from django.urls import reverse

SIZES = (1_000, 10_000, 100_000)
TERMS = 500
SCRATCH = Path(tempfile.gettempdir())
ROOT = Path(__file__).resolve().parent.parent
ADMIN = "bench-admin"
# The jobs, each manage.py in a process of its own, in this order (--jobs names them).
JOBS = {
    "rerender": "re-render every note",
    "index": "rebuild the search index",
    "backup": "back up the site",
    "restore": "restore it into an empty database",
    "export": "export it as Markdown",
    "import": "import 5,000 exported files",
    "glossary": "edit a term ~10% of notes use",
    "cards": "draw 1,000 notes' cards",
}
# Terms whose notes the glossary job may re-render: those of the notes' own vocabulary.
GLOSSARY_CANDIDATES = 30
# The share cards of this many published notes (the oldest), drawn into an empty media folder.
CARD_SAMPLE = 1_000


class Command(BaseCommand):
    help = "Pages, search, related notes, the admin and jobs at several sizes, on both engines."

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
        parser.add_argument("--engines", default="sqlite,postgresql")
        parser.add_argument(
            "--postgres-url",
            default=os.environ.get(
                "BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"
            ),
            help="a server where this benchmark may create its databases",
        )
        parser.add_argument("--runs", type=int, default=5, help="timed requests per page")
        parser.add_argument(
            "--jobs",
            default=",".join(JOBS),
            help=f"the jobs to run, of {','.join(JOBS)} ('' for none)",
        )
        parser.add_argument("--regenerate", action="store_true")
        parser.add_argument(
            "--by-query", action="store_true", help="a row per search query (its median)"
        )
        parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args, **options):
        if options["measure"]:
            self.stdout.write(json.dumps(measure(options)))
            return
        sizes = [int(size) for size in options["sizes"].split(",")]
        engines = [engine.strip() for engine in options["engines"].split(",")]
        for engine in engines:
            results = {}
            for size in sizes:
                url = database_url(engine, size, options["postgres_url"])
                self.stderr.write(f"{engine}, {size:,} notes: {url}")
                results[size] = self.child(url, size, options)
            self.stdout.write(report(engine, sizes, results, options))

    def child(self, url, size, options):
        command = [sys.executable, "-m", "benchmarks", "scale", "--measure", "--sizes", str(size)]
        command += ["--runs", str(options["runs"]), "--postgres-url", options["postgres_url"]]
        command += ["--jobs", options["jobs"]] + ["--regenerate"] * options["regenerate"]
        env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        env.update(
            DATABASE_URL=url,
            STATIC_ROOT=str(SCRATCH / "biji-scale-static"),
            MEDIA_ROOT=str(SCRATCH / f"biji-scale-media-{size}"),
            BIJI_PRIVATE_ROOT=str(SCRATCH / f"biji-scale-private-{size}"),
            DJANGO_LOG_LEVEL="ERROR",
        )
        done = subprocess.run(  # noqa: S603 (our own command)
            command, cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode:
            raise CommandError(f"The run at {size} notes failed:\n{done.stderr[-4000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def database_url(engine, size, postgres_url):
    if engine == "sqlite":
        return f"sqlite:///{SCRATCH / f'biji-scale-{size}.sqlite3'}"
    if engine != "postgresql":
        raise CommandError(f"Unknown engine {engine!r}: sqlite or postgresql.")
    name = f"biji_scale_{size}"
    create_postgres_database(postgres_url, name)
    return postgres_url.rsplit("/", 1)[0] + f"/{name}"


def create_postgres_database(server_url, name):
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        if exists.fetchone() is None:
            connection.execute(f'CREATE DATABASE "{name}"')


# In the child: one database, its size.


def measure(options):
    from django.db import connection

    size = int(options["sizes"])
    call_command("migrate", verbosity=0, interactive=False)
    generated = fill(size, options["regenerate"])
    call_command("collectstatic", interactive=False, verbosity=0)
    result = {
        "vendor": connection.vendor,
        "generated_seconds": generated,
        "pages": measure_pages(options["runs"]),
        "search": measure_search(),  # (p50, p95, max), {query: median}
        "related": measure_related(),
        "admin": measure_admin(options["runs"]),
    }
    wanted = [name for name in options["jobs"].split(",") if name]
    if wanted:
        result["jobs"] = measure_jobs(size, options["postgres_url"], wanted)
    return result


def fill(size, regenerate):
    """Generated notes and glossary terms, each made once: seconds it took, or None if reused."""
    from benchmarks import data
    from benchmarks.search import glossary_terms
    from blog.caching import version
    from blog.models import Note, Term

    notes = Note.objects.all()
    if notes.exclude(slug__startswith=data.SLUG_PREFIX).exists():
        raise CommandError(f"{settings.DATABASES['default']['NAME']} holds notes this "
                           "benchmark did not make: point it at a scratch database.")  # fmt: skip
    started, made = time.perf_counter(), False
    if regenerate or notes.count() != size:
        data.generate(size)
        made = True
    if regenerate or Term.objects.count() != TERMS:
        Term.objects.filter(slug__startswith=data.SLUG_PREFIX).delete()
        Term.objects.bulk_create(glossary_terms(TERMS))
        version.bump()  # bulk_create sends no signals
        made = True
    return time.perf_counter() - started if made else None


def page_urls():
    from benchmarks import data
    from blog.models import Note

    urls = data.sample_urls()
    published = Note.objects.published().filter(slug__startswith=data.SLUG_PREFIX)
    latest = published.order_by("-published_at").first().published_at
    paired = published.filter(translation__isnull=False).order_by("-pk").first()
    urls["archive month"] = reverse(
        "blog:archive-month", kwargs={"year": latest.year, "month": latest.month}
    )
    urls["glossary"] = reverse("blog:glossary")
    urls["parallel view"] = reverse("blog:note-parallel", kwargs={"slug": paired.slug})
    wanted = ("home", "note", "note in a series", "tag", "series", "archive month",
              "feed (RSS)", "sitemap page", "glossary", "parallel view")  # fmt: skip
    return {name: urls[name] for name in wanted}


def timed(function, runs):
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        response = function()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), response


def measure_pages(runs):
    from django.core.cache import caches

    client = Client(HTTP_ACCEPT_ENCODING="gzip", HTTP_HOST="127.0.0.1")
    rows = {}
    for name, url in page_urls().items():
        with override_settings(BIJI_PAGE_CACHE_SECONDS=0):
            for cache in caches.all():
                cache.clear()  # the embedded cache only: the child never has REDIS_URL
            client.get(url)  # the per-version memos made
            cold, response = timed(lambda url=url: client.get(url), runs)
        assert response.status_code == 200, (url, response.status_code)
        client.get(url)  # kept by the page cache
        warm, response = timed(lambda url=url: client.get(url), runs)
        etag = response["ETag"]
        revalidated, answer = timed(
            lambda url=url, etag=etag: client.get(url, HTTP_IF_NONE_MATCH=etag), runs
        )
        assert answer.status_code == 304, (url, answer.status_code)
        rows[name] = [cold, warm, revalidated]
    return rows


def measure_search():
    from benchmarks.search import QUERIES, _percentile, _search_url

    client = Client(HTTP_HOST="127.0.0.1")
    samples, by_query = [], {}
    for raw, page_number, *interface in QUERIES:
        path, params = _search_url(raw, page_number, interface[0] if interface else "zh")
        client.get(path, params)  # warm-up
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            response = client.get(path, params)
            runs.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (raw, response.status_code)
        samples += runs
        label = f"`{raw}`" + (f" p. {page_number}" if page_number != 1 else "")
        by_query[label + (f" ({interface[0]})" if interface else "")] = statistics.median(runs)
    summary = [statistics.median(samples), _percentile(samples, 0.95), max(samples)]
    return summary, by_query


def measure_related():
    from benchmarks.search import _percentile
    from blog.models import Note, Tag
    from blog.public.related import related_notes

    ids = list(Note.objects.published().values_list("pk", flat=True))
    samples = []
    for pk in random.Random(1).sample(ids, min(200, len(ids))):  # noqa: S311 (reproducible)
        note = Note.objects.get(pk=pk)
        tags = list(
            Tag.objects.filter(tagged_notes__content_object=note).values_list("pk", flat=True)
        )
        started = time.perf_counter()
        related_notes(note, tags, {pk})
        samples.append((time.perf_counter() - started) * 1000)
    return [statistics.median(samples), _percentile(samples, 0.95)]


def measure_admin(runs):
    from django.contrib.auth import get_user_model

    from benchmarks import data
    from blog.models import Note

    user, _ = get_user_model().objects.get_or_create(
        username=ADMIN, defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    note = Note.objects.filter(slug__startswith=data.SLUG_PREFIX).order_by("-pk").first()
    listing = reverse("admin:blog_note_changelist")
    urls = {
        "note list": listing,
        "… language": listing + "?language__exact=en",
        "… state": listing + "?state=draft",
        "… translation behind": listing + "?sync=behind",
        "… term warnings": listing + "?terms=with",
        "… search": listing + "?q=%E8%B0%83%E5%BA%A6",
        "change form": reverse("admin:blog_note_change", args=[note.pk]),
        "history": reverse("admin:blog_note_history", args=[note.pk]),
    }
    rows = {}
    for name, url in urls.items():
        client.get(url)
        took, response = timed(lambda url=url: client.get(url), runs)
        assert response.status_code == 200, (url, response.status_code)
        rows[name] = took
    return rows


def measure_jobs(size, postgres_url, wanted):
    """{job: [seconds, peak MB, what it printed last]}, each job ``manage.py`` in a process of
    its own."""
    from blog.porting import limits

    folder = SCRATCH / f"biji-scale-jobs-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    here = dict(os.environ)
    restored_url = other_database(postgres_url, size, folder, "restored")
    restored = {**here, "DATABASE_URL": restored_url, "MEDIA_ROOT": str(folder / "media"),
                "BIJI_PRIVATE_ROOT": str(folder / "private")}  # fmt: skip
    jobs = {
        "rerender": (here, ["rerender"]),
        "index": (here, ["rebuild_search_index"]),
        "backup": (here, ["backup", str(folder / "backup")]),
        "restore": (restored, ["restore", str(folder / "backup")]),
        "export": (here, ["export_markdown", str(folder / "export")]),
    }
    if "glossary" in wanted:
        jobs["glossary"] = (here, ["shell", "-c", GLOSSARY_JOB % {"slug": term_used_by_a_tenth()}])
    if "cards" in wanted:
        cards = {**here, "MEDIA_ROOT": str(folder / "card-media")}
        jobs["cards"] = (cards, ["shell", "-c", CARDS_JOB % {"count": CARD_SAMPLE}])
    if "import" in wanted:
        imported_url = other_database(postgres_url, size, folder, "imported")
        imported = {**here, "DATABASE_URL": imported_url, "MEDIA_ROOT": str(folder / "imported")}
        run_job(imported, ["migrate", "--verbosity", "0"])
        jobs["import"] = (imported, ["import_markdown", str(folder / "to-import")])
    if "restore" in wanted and "backup" not in wanted:
        raise CommandError("The restore job restores the backup job's backup: run both.")
    if "import" in wanted and "export" not in wanted:
        raise CommandError("The import job imports the export job's files: run both.")
    rows = {}
    for name in JOBS:
        if name in wanted:
            if name == "import":
                pick_files(folder / "export", folder / "to-import", limits.MAX_FILES)
            env, args = jobs[name]
            rows[JOBS[name]] = run_job(env, args)
    for url in (restored_url, jobs.get("import", ({}, ()))[0].get("DATABASE_URL", "")):
        if url.startswith("postgres"):
            drop_postgres_database(postgres_url, url.rsplit("/", 1)[1])
    shutil.rmtree(folder, ignore_errors=True)
    return rows


def other_database(postgres_url, size, folder, purpose):
    """An empty database beside the measured one, on the same engine: its URL."""
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{folder / f'{purpose}.sqlite3'}"
    name = f"biji_scale_{purpose}_{size}"
    drop_postgres_database(postgres_url, name)
    create_postgres_database(postgres_url, name)
    return postgres_url.rsplit("/", 1)[0] + f"/{name}"


def pick_files(export, target, count):
    """The export's first ``count`` Markdown files (by path), linked into ``target`` as they lie:
    one import run at the import's limit."""
    files = sorted(path for path in export.rglob("*.md") if path.is_file())[:count]
    for path in files:
        link = target / path.relative_to(export)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, link)


def term_used_by_a_tenth():
    """The slug of the glossary term (of the notes' own vocabulary) whose forms are in the
    number of notes nearest a tenth of them: what its change re-renders."""
    from django.db.models import Q

    from benchmarks import data
    from blog.models import Note, Term

    tenth = Note.objects.count() / 10
    terms = Term.objects.filter(slug__startswith=data.SLUG_PREFIX).order_by("pk")
    best = None
    for term in terms[:GLOSSARY_CANDIDATES]:
        holds = Q()
        for form in term.all_forms():
            holds |= Q(plain_text__icontains=form)
        distance = abs(Note.objects.filter(holds).count() - tenth)
        if best is None or distance < best[0]:
            best = (distance, term.slug)
    return best[1]


# An edit of the term's English definition (which its marks in notes carry), then the re-render
# it queued, run here as the background runner runs a task (other tasks the blog holds queued
# are left alone); prints the notes rendered again.
GLOSSARY_JOB = """
from django_tasks_db.models import DBTaskResult
from blog.background.term_rerender import rerender_for_terms
from blog.models import Term
term = Term.objects.get(slug=%(slug)r)
definition = term.definition_en
term.definition_en = definition[:-1] if definition.endswith("·") else definition + "·"
term.save()
queued = DBTaskResult.objects.filter(task_path__endswith=".rerender_for_terms", status="READY")
task = queued.latest("enqueued_at")
print(rerender_for_terms.call(*task.args_kwargs["args"], **task.args_kwargs["kwargs"]))
task.delete()
"""

# The cards of the oldest published notes, as the background runner draws one; prints how many.
CARDS_JOB = """
from blog.images.card_fonts import card_fonts
from blog.images.card_store import CardKeeper
from blog.models import Note, SiteSettings
fonts = card_fonts()
assert fonts is not None, "no font draws Chinese: bash scripts/install-fonts.sh"
keeper, site = CardKeeper(fonts), SiteSettings.load()
for note in Note.objects.published().select_related("series").order_by("pk")[:%(count)d]:
    keeper.note(note, site)
print(len(keeper.made))
"""


# Started by a small launcher that reports its child's peak resident set: a process forked from
# this one would report this one's (Linux carries the peak over fork and exec).
LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True)
said = [line.strip() for line in child.stdout if line.strip()]
_pid, status, usage = os.wait4(child.pid, 0)
print(said[-1] if said else "")
print(usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_job(env, args):
    """``manage.py args``: [seconds, peak MB, the last line it printed]."""
    started = time.perf_counter()
    done = subprocess.run(  # noqa: S603 (our own command)
        [sys.executable, "-c", LAUNCHER, sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    took = time.perf_counter() - started
    if done.returncode:
        raise CommandError(f"manage.py {' '.join(args)} failed: {done.stderr[-3000:]}")
    *said, peak = done.stdout.splitlines()
    return [took, int(peak) / 1024, said[-1] if said else ""]


def drop_postgres_database(server_url, name):
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# The parent's report.


def report(engine, sizes, results, options):
    head = f"| {'':<42} |" + "".join(f" {size:>18,} |" for size in sizes)
    rule = f"|{'-' * 44}|" + "".join(f"{'-' * 19}:|" for _ in sizes)
    lines = [
        f"### {engine}: {', '.join(f'{size:,}' for size in sizes)} notes",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs · "
        f"Python {platform.python_version()} · {options['runs']} runs a page · "
        f"load average after: {', '.join(f'{v:.2f}' for v in os.getloadavg())}",
        "",
        head,
        rule,
    ]

    def row(label, cell):
        lines.append(
            f"| {label:<42} |" + "".join(f" {cell(results[size]):>18} |" for size in sizes)
        )

    row(
        "generated (s; reused: -)",
        lambda r: "-" if r["generated_seconds"] is None else f"{r['generated_seconds']:.0f}",
    )
    for name in results[sizes[0]]["pages"]:
        row(
            f"{name}: cold / warm / 304 (ms)",
            lambda r, n=name: "/".join(f"{v:.1f}" for v in r["pages"][n]),
        )
    row("search p50 / p95 / max (ms)", lambda r: "/".join(f"{v:.0f}" for v in r["search"][0]))
    if options["by_query"]:
        for query in results[sizes[0]]["search"][1]:
            row(f"search {query} (ms)", lambda r, q=query: f"{r['search'][1][q]:.0f}")
    row("related notes p50 / p95 (ms)", lambda r: "/".join(f"{v:.1f}" for v in r["related"]))
    for name in results[sizes[0]]["admin"]:
        row(f"admin {name} (ms)", lambda r, n=name: f"{r['admin'][n]:.0f}")
    for name in results[sizes[0]].get("jobs", {}):
        row(f"{name} (s, peak MB)", lambda r, n=name: job_cell(*r["jobs"][n]))
    return "\n".join(lines) + "\n"


def job_cell(seconds, peak_mb, said=""):
    counted = f" ({int(said):,} notes)" if said.isdigit() else ""  # re-rendered, or carded
    return f"{seconds:.0f} s, {peak_mb:.0f} MB{counted}"


def _cpu_name():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"
