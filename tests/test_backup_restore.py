"""``manage.py backup`` / ``restore``: public pages, feeds and media come back byte for byte.

The demo is seeded into a site of its own (a SQLite file), its public pages rendered, backed
up, restored into a new empty database (``--with-accounts``: a backup biji made, accounts
included) and rendered again: once per test session into SQLite (tests/backed_up_demo.py), and
on PostgreSQL runs into PostgreSQL through the portable dump, then from there into another
PostgreSQL database through its native dump (throwaway databases, dropped when the run ends).
The restore renders every stored HTML again from its Markdown, so the same pages also say that
it renders what was stored.
"""

import difflib
import json
import shutil
import sqlite3

import pytest

from tests.backed_up_demo import assert_identical, copy_site, render, round_trip
from tests.processes import manage, migrate, site_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sqlite_to_postgresql(tmp_path_factory, throwaway_postgresql):
    """The demo's round trip from a SQLite site to a PostgreSQL one, through the portable dump
    (the PostgreSQL tests continue from it)."""
    folder = tmp_path_factory.mktemp("to-postgresql")
    return round_trip(
        folder, f"sqlite:///{folder / 'a.sqlite3'}", throwaway_postgresql("biji_backup")
    )


def test_sqlite_round_trip_is_byte_identical(backed_up_demo, tmp_path):
    """Pages, feeds and media, and every row: a backup of the restored site holds the same
    dump, accounts and the HTML rendered again on restore included."""
    demo = backed_up_demo
    assert_identical(demo.before, demo.after)
    manifest = json.loads((demo.backup / "manifest.json").read_text())
    assert manifest["engine"] == "sqlite" and manifest["native"] == "db.sqlite3"
    media = "media/" + next(iter(manifest["media"]))
    assert set(manifest["files"]) >= {"data.json", "db.sqlite3", media}
    manage(demo.target, "backup", str(tmp_path / "again"))
    assert_same_dump(demo.backup, tmp_path / "again")


def assert_same_dump(*backups):
    dumps = [(backup / "data.json").read_text() for backup in backups]
    assert '"blog.note"' in dumps[0] and '"auth.user"' in dumps[0]
    if dumps[0] != dumps[1]:
        lines = [dump.splitlines() for dump in dumps]
        diff = list(difflib.unified_diff(*lines, lineterm=""))[:40]
        raise AssertionError("the restored site's dump differs:\n" + "\n".join(diff))


def test_restore_refuses_a_database_with_content_unless_forced(backed_up_demo, tmp_path):
    site = copy_site(backed_up_demo.target, tmp_path / "site")
    with pytest.raises(AssertionError, match="not empty"):
        manage(site, "restore", str(backed_up_demo.backup))
    assert render(site) == backed_up_demo.after
    manage(site, "restore", "--force", str(backed_up_demo.backup))
    assert render(site) == backed_up_demo.after


def test_a_damaged_backup_is_refused_before_anything_is_touched(backed_up_demo, tmp_path):
    backup = tmp_path / "backup"
    shutil.copytree(backed_up_demo.backup, backup)
    data = backup / "data.json"
    data.chmod(0o600)
    data.write_text(data.read_text().replace("biji-portable-1", "biji-portable-1 ", 1))
    target = site_env(f"sqlite:///{tmp_path / 'b.sqlite3'}", tmp_path / "media-b")
    with pytest.raises(AssertionError, match="altered"):
        manage(target, "restore", str(backup))
    with sqlite3.connect(tmp_path / "b.sqlite3") as db:  # not even migrated
        assert db.execute("select name from sqlite_master where type = 'table'").fetchall() == []


def test_backup_needs_a_new_directory(tmp_path):
    env = site_env(f"sqlite:///{tmp_path / 'a.sqlite3'}", tmp_path / "media")
    migrate(env)
    (tmp_path / "backup").mkdir()
    (tmp_path / "backup" / "old").write_text("x")
    with pytest.raises(AssertionError, match="not empty"):
        manage(env, "backup", str(tmp_path / "backup"))


def test_sqlite_to_postgresql_is_byte_identical(sqlite_to_postgresql):
    assert_identical(sqlite_to_postgresql.before, sqlite_to_postgresql.after)


def test_postgresql_round_trip_is_byte_identical(
    sqlite_to_postgresql, tmp_path, throwaway_postgresql
):
    """The PostgreSQL site restored from SQLite, backed up in PostgreSQL's own format and
    restored into another PostgreSQL database: the same pages, media and dump again."""
    source = sqlite_to_postgresql.target
    manage(source, "backup", str(tmp_path / "backup"))
    manifest = json.loads((tmp_path / "backup" / "manifest.json").read_text())
    assert manifest["engine"] == "postgresql"
    assert manifest["native"] == "db.pgdump"
    target = site_env(throwaway_postgresql("biji_backup"), tmp_path / "media-target")
    manage(target, "restore", "--with-accounts", str(tmp_path / "backup"))
    assert_identical(sqlite_to_postgresql.before, render(target))
    manage(target, "backup", str(tmp_path / "again"))
    assert_same_dump(tmp_path / "backup", tmp_path / "again")
