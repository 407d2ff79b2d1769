"""``manage.py backup`` / ``restore``: public pages, feeds and media come back byte for byte.

Each test builds a source site in a database of its own (a SQLite file, or a PostgreSQL
database it creates and drops), renders its public pages, backs it up, restores into a new
empty database (``--with-accounts``: a backup biji made, accounts included) and renders again.
SQLite → PostgreSQL goes through the portable dump. The restore renders every stored HTML
again from its Markdown, so the same pages also say that it renders what was stored.
"""

import difflib
import json
import sqlite3
import uuid
from pathlib import Path

import pytest

from tests.processes import manage, migrate, site_env

pytestmark = pytest.mark.slow


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

# Demo content, a cover image and a navigation link; updated_at with microseconds.
SEED = """
from django.core.files.base import ContentFile
from django.core.management import call_command
from blog.models import Note
call_command("load_demo", verbosity=0)
note = Note.objects.published().order_by("pk").first()
note.cover.save("cover.png", ContentFile(b"\\x89PNG not really an image"), save=True)
from django.contrib.auth import get_user_model
get_user_model().objects.create_superuser("author", "a@example.com", "pw-for-tests-only")
"""


def render(env):
    out = Path(env["MEDIA_ROOT"]).parent / f"render-{uuid.uuid4().hex}.json"
    manage(env, "shell", "-c", RENDER % {"pages": PAGES, "out": str(out)})
    return json.loads(out.read_text())


def seed(env):
    migrate(env)
    manage(env, "shell", "-c", SEED)


@pytest.fixture
def pg_database(throwaway_postgresql):
    """Makes throwaway PostgreSQL databases (dropped when the session ends: conftest.py)."""
    return lambda: throwaway_postgresql("biji_backup")


def round_trip(tmp_path, source_url, target_url):
    source = site_env(source_url, tmp_path / "media-source")
    target = site_env(target_url, tmp_path / "media-target")
    seed(source)
    before = render(source)
    manage(source, "backup", str(tmp_path / "backup"))
    after_backup = render(source)
    assert_same_pages(before, after_backup)  # a backup changes nothing
    out = manage(target, "restore", "--with-accounts", str(tmp_path / "backup"))
    assert "Users with staff or superuser rights now: author (superuser)." in out
    after = render(target)
    return before, after, tmp_path / "backup", target


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


def test_sqlite_round_trip_is_byte_identical(tmp_path):
    """Pages, feeds and media, and every row: a backup of the restored site holds the same
    dump, accounts and the HTML rendered again on restore included."""
    before, after, backup, target = round_trip(
        tmp_path, f"sqlite:///{tmp_path / 'a.sqlite3'}", f"sqlite:///{tmp_path / 'b.sqlite3'}"
    )
    assert_identical(before, after)
    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["engine"] == "sqlite" and manifest["native"] == "db.sqlite3"
    assert set(manifest["files"]) >= {"data.json", "db.sqlite3", "media/" + manifest_media(backup)}
    manage(target, "backup", str(tmp_path / "again"))
    dumps = [(folder / "data.json").read_text() for folder in (backup, tmp_path / "again")]
    assert '"blog.note"' in dumps[0] and '"auth.user"' in dumps[0]
    if dumps[0] != dumps[1]:
        lines = [dump.splitlines() for dump in dumps]
        diff = list(difflib.unified_diff(*lines, lineterm=""))[:40]
        raise AssertionError("the restored site's dump differs:\n" + "\n".join(diff))


def manifest_media(backup):
    return next(iter(json.loads((backup / "manifest.json").read_text())["media"]))


def test_restore_refuses_a_database_with_content_unless_forced(tmp_path):
    url = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    env = site_env(url, tmp_path / "media")
    seed(env)
    manage(env, "backup", str(tmp_path / "backup"))
    with pytest.raises(AssertionError, match="not empty"):
        manage(env, "restore", str(tmp_path / "backup"))
    before = render(env)
    manage(env, "restore", "--force", str(tmp_path / "backup"))
    assert render(env) == before


def test_a_damaged_backup_is_refused_before_anything_is_touched(tmp_path):
    env = site_env(f"sqlite:///{tmp_path / 'a.sqlite3'}", tmp_path / "media")
    migrate(env)
    manage(env, "backup", str(tmp_path / "backup"))
    data = tmp_path / "backup" / "data.json"
    data.write_text(data.read_text().replace("biji-portable-1", "biji-portable-1 ", 1))
    target = site_env(f"sqlite:///{tmp_path / 'b.sqlite3'}", tmp_path / "media-b")
    with pytest.raises(AssertionError, match="altered"):
        manage(target, "restore", str(tmp_path / "backup"))
    with sqlite3.connect(tmp_path / "b.sqlite3") as db:  # not even migrated
        assert db.execute("select name from sqlite_master where type = 'table'").fetchall() == []


def test_backup_needs_a_new_directory(tmp_path):
    env = site_env(f"sqlite:///{tmp_path / 'a.sqlite3'}", tmp_path / "media")
    migrate(env)
    (tmp_path / "backup").mkdir()
    (tmp_path / "backup" / "old").write_text("x")
    with pytest.raises(AssertionError, match="not empty"):
        manage(env, "backup", str(tmp_path / "backup"))


def test_postgresql_round_trip_is_byte_identical(tmp_path, pg_database):
    before, after, backup, _target = round_trip(tmp_path, pg_database(), pg_database())
    assert_identical(before, after)
    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["engine"] == "postgresql"
    assert manifest["native"] == "db.pgdump"


def test_sqlite_to_postgresql_is_byte_identical(tmp_path, pg_database):
    before, after, _backup, _target = round_trip(
        tmp_path, f"sqlite:///{tmp_path / 'a.sqlite3'}", pg_database()
    )
    assert_identical(before, after)
