"""The demo blog backed up with ``manage.py backup`` and restored with ``manage.py restore`` into
a second site, once per test session (the first pytest-xdist worker to need it makes it, the
others wait for it and read it), for every test of what a round trip keeps.

Each site is its own SQLite file and media folder, used through ``manage.py`` in fresh
processes (tests/processes.py). Backing up, restoring and rendering a site costs ~10 s of CPU;
the round trip's checks (pages and media byte for byte, the dump again, which notes are behind,
the glossary, a restore over content) share one. A test that changes a site works on a copy
(:func:`copy_site`).

tests/conftest.py loads it as a plugin (``pytest_plugins``), for every test module.
"""

import difflib
import fcntl
import json
import shutil
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from tests.processes import copy_sqlite, manage, migrate, site_env

PAGES = [
    "/",
    "/en/",
    "/?page=2",
    "/tags/",
    "/series/",
    "/archive/",
    "/feed/",
    "/feed/atom/",
    "/lang/en/feed/",
    "/sitemap.xml",
    "/sitemap-notes.xml",
    "/sitemap-tags.xml",
]

# Renders the pages above, plus every note, tag, series and page, and hashes the media.
RENDER = """
import hashlib, json
from pathlib import Path
from django.conf import settings
from django.test import Client
from blog.models import Note, Page, Series, Tag
client = Client()
urls = %(pages)r
urls += [n.get_absolute_url() for n in Note.objects.published().order_by("pk")]
urls += [t.get_absolute_url() for t in Tag.objects.order_by("pk")]
urls += [t.get_absolute_url() + "feed/" for t in Tag.objects.order_by("pk")]
urls += [s.get_absolute_url() for s in Series.objects.order_by("pk")]
urls += [p.get_absolute_url() for p in Page.objects.published().order_by("pk")]
out = {}
for url in urls:
    response = client.get(url)
    out[url] = [response.status_code, response.content.decode()]
media = Path(settings.MEDIA_ROOT)
out["media"] = sorted(
    (str(p.relative_to(media)), hashlib.sha256(p.read_bytes()).hexdigest())
    for p in media.rglob("*") if p.is_file()
)
shares = [n for n in Note.objects.order_by("pk")]
out["notes"] = [[n.pk, n.slug, n.updated_at.isoformat(), n.created_at.isoformat()] for n in shares]
Path(%(out)r).write_text(json.dumps(out))
"""

# Demo content, a cover image, a superuser; the original of the demo's translated pair edited
# after its translation, so the translation is behind; updated_at with microseconds.
SEED = """
from django.core.files.base import ContentFile
from django.core.management import call_command
from blog.models import Note
call_command("load_demo", verbosity=0)
note = Note.objects.published().order_by("pk").first()
note.cover.save("cover.png", ContentFile(b"\\x89PNG not really an image"), save=True)
original = Note.objects.get(slug="cuda-warp-scheduling")
original.body += "\\n补充一段：Hopper 的 warp 调度。\\n"
original.save()
from django.contrib.auth import get_user_model
get_user_model().objects.create_superuser("author", "a@example.com", "pw-for-tests-only")
"""


def render(env):
    """Every public page of the site of ``env`` (status and HTML), its media's hashes and its
    notes' keys and dates."""
    out = Path(env["MEDIA_ROOT"]).parent / f"render-{uuid.uuid4().hex}.json"
    manage(env, "shell", "-c", RENDER % {"pages": PAGES, "out": str(out)})
    return json.loads(out.read_text())


def seed(env):
    migrate(env)
    manage(env, "shell", "-c", SEED)


@dataclass
class RoundTrip:
    source: dict  # the environments of the two sites
    target: dict
    backup: Path
    before: dict  # render() of the source before its backup, and of the target after restore
    after: dict


def round_trip(folder, source_url, target_url):
    """The seeded site on ``source_url`` backed up into ``folder``/backup and restored with its
    accounts (``--with-accounts``: a backup biji made) into the empty ``target_url``."""
    source = site_env(source_url, folder / "media-source")
    target = site_env(target_url, folder / "media-target")
    seed(source)
    before = render(source)
    manage(source, "backup", str(folder / "backup"))
    assert_same_pages(before, render(source))  # a backup changes nothing
    out = manage(target, "restore", "--with-accounts", str(folder / "backup"))
    assert "Users with staff or superuser rights now: author (superuser)." in out
    return RoundTrip(source, target, folder / "backup", before, render(target))


@pytest.fixture(scope="session")
def backed_up_demo(request, tmp_path_factory):
    """The demo's round trip between two SQLite sites. Read-only: copy a site to change it."""
    shared = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # a worker's folder is inside the session's
        shared = shared.parent
    folder = shared / "backed-up-demo"
    with open(shared / "backed-up-demo.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = folder / "round-trip.json"
        if made.exists():
            trip = json.loads(made.read_text("utf-8"))
            return RoundTrip(**{**trip, "backup": Path(trip["backup"])})
        shutil.rmtree(folder, ignore_errors=True)  # a worker that failed half-way
        folder.mkdir()
        trip = round_trip(
            folder, f"sqlite:///{folder / 'a.sqlite3'}", f"sqlite:///{folder / 'b.sqlite3'}"
        )
        made.write_text(json.dumps({**asdict(trip), "backup": str(trip.backup)}), "utf-8")
        return trip


def copy_site(env, folder):
    """A copy of the SQLite site of ``env`` (its database and media) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / "db.sqlite3"
    copy_sqlite(env["DATABASE_URL"].removeprefix("sqlite:///"), database)
    shutil.copytree(env["MEDIA_ROOT"], folder / "media")
    return site_env(f"sqlite:///{database}", folder / "media")


def assert_same_pages(before, after):
    for url in before:
        if url.startswith("/") and before[url] != after[url]:
            lines = [page[1].splitlines() for page in (before[url], after[url])]
            diff = list(difflib.unified_diff(*lines, lineterm=""))[:40]
            raise AssertionError(f"{url} differs:\n" + "\n".join(diff))


def assert_identical(before, after):
    assert before.keys() == after.keys()
    assert len(before["media"]) == 1
    assert before["notes"] == after["notes"]  # pks, slugs, dates to the microsecond
    assert any("." in updated for _pk, _slug, updated, _created in before["notes"])
    pages = [url for url in before if url.startswith("/")]
    assert len(pages) > 20
    assert all(before[url][0] == 200 for url in pages)
    assert_same_pages(before, after)
    assert before["media"] == after["media"]
