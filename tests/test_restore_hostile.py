"""A backup is not trusted with paths: a restore writes only inside MEDIA_ROOT and reads only
inside the backup, or refuses the whole restore before writing anything; backups are private.

Each hostile backup is made by hand from a real one (``manage.py backup``) with the manifest's
hashes updated to match, as an attacker would: the hashes detect damage, not hostility.
"""

import hashlib
import json
import os
import shutil
import sqlite3
import stat

import pytest

from tests.processes import manage, migrate, site_env

pytestmark = pytest.mark.slow

PLANTED = b"print('planted')\n"


@pytest.fixture(scope="module")
def real_backup(tmp_path_factory):
    """A backup of a migrated site with one media file and a superuser."""
    base = tmp_path_factory.mktemp("source")
    env = site_env(f"sqlite:///{base / 'source.sqlite3'}", base / "media")
    migrate(env)
    (base / "media" / "covers").mkdir(parents=True)
    (base / "media" / "covers" / "cover.png").write_bytes(b"\x89PNG not really an image")
    manage(env, "shell", "-c", CREATE_USER % {"name": "author", "staff": True, "superuser": True})
    manage(env, "backup", str(base / "backup"))
    return base / "backup"


CREATE_USER = """
from django.contrib.auth import get_user_model
get_user_model().objects.create_user(
    "%(name)s", password="pw-for-tests-only", is_staff=%(staff)s, is_superuser=%(superuser)s
)
"""


@pytest.fixture
def site(tmp_path):
    """The site restored into: an empty SQLite file, MEDIA_ROOT at site/media and, beside it,
    site/config, where a hostile backup aims."""
    root = tmp_path / "site"
    (root / "config").mkdir(parents=True)
    (root / "media").mkdir()
    (root / "database.sqlite3").touch()
    return root


def copy_of(real_backup, tmp_path):
    backup = tmp_path / "hostile"
    shutil.copytree(real_backup, backup, symlinks=True)
    return backup


def sha(data):
    return hashlib.sha256(data).hexdigest()


def edit_manifest(backup, change):
    path = backup / "manifest.json"
    os.chmod(path, 0o600)
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def plant_media(name, where):
    """A media entry ``name`` whose bytes the backup holds at ``where``, hashes matching."""

    def hostile(backup, site):
        target = where(backup, site)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(PLANTED)
        relative = os.path.relpath(target, backup)

        def change(manifest):
            manifest["media"][name(site)] = sha(PLANTED)
            manifest["files"][relative] = sha(PLANTED)

        edit_manifest(backup, change)

    return hostile


def link_media(backup, site):
    """A media file of the backup that is a link to a file outside it."""
    secret = site.parent / "secret.txt"
    secret.write_bytes(PLANTED)
    (backup / "media" / "covers" / "stolen.txt").symlink_to(secret)

    def change(manifest):
        manifest["media"]["covers/stolen.txt"] = sha(PLANTED)
        manifest["files"]["media/covers/stolen.txt"] = sha(PLANTED)

    edit_manifest(backup, change)


def list_outside_file(backup, site):
    """The manifest lists a file above the backup's folder."""
    outside = site.parent / "outside.txt"
    outside.write_bytes(PLANTED)
    edit_manifest(backup, lambda m: m["files"].update({"../outside.txt": sha(PLANTED)}))


def unchecked_media(backup, site):
    """A media entry the manifest's list of checked files does not cover."""
    (backup / "media" / "covers" / "extra.png").write_bytes(PLANTED)
    edit_manifest(backup, lambda m: m["media"].update({"covers/extra.png": sha(PLANTED)}))


def linked_media_folder(backup, site):
    """MEDIA_ROOT holds a link to a folder outside it, and the backup writes through it."""
    (site / "media" / "covers").symlink_to(site / "config")
    plant_media(lambda s: "covers/planted.py", lambda b, s: b / "media" / "covers" / "planted.py")(
        backup, site
    )


HOSTILE = {
    "dot-dot media name": plant_media(
        lambda s: "../config/planted.py", lambda b, s: b / "config" / "planted.py"
    ),
    "absolute media name": plant_media(
        lambda s: str(s / "config" / "planted.py"), lambda b, s: b / "media" / "planted.py"
    ),
    "media file linked outside": link_media,
    "manifest lists a file outside": list_outside_file,
    "media not among checked files": unchecked_media,
    "linked folder in MEDIA_ROOT": linked_media_folder,
}


def files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("attack", HOSTILE)
def test_a_hostile_backup_is_refused_before_anything_is_written(
    real_backup, tmp_path, site, attack
):
    backup = copy_of(real_backup, tmp_path)
    HOSTILE[attack](backup, site)
    env = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    before = {folder: files_under(site / folder) for folder in ("config", "media")}
    with pytest.raises(AssertionError) as refused:
        manage(env, "restore", str(backup))
    assert "Nothing was restored" in str(refused.value)
    assert {folder: files_under(site / folder) for folder in ("config", "media")} == before
    assert not (site / "config" / "planted.py").exists()
    with sqlite3.connect(site / "database.sqlite3") as db:  # not even migrated
        assert db.execute("select name from sqlite_master").fetchall() == []


def test_the_restore_names_who_can_log_in_to_the_admin(real_backup, tmp_path, site):
    """An account added to a backup shows in the restore's report."""
    source = real_backup.parent
    env = site_env(f"sqlite:///{source / 'source.sqlite3'}", source / "media")
    manage(
        env, "shell", "-c", CREATE_USER % {"name": "intruder", "staff": True, "superuser": False}
    )
    manage(env, "shell", "-c", CREATE_USER % {"name": "reader", "staff": False, "superuser": False})
    manage(env, "backup", str(tmp_path / "with-intruder"))
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    out = manage(target, "restore", str(tmp_path / "with-intruder"))
    assert "staff or superuser rights now: author (superuser), intruder (staff)." in out
    assert "reader" not in out


def test_backups_are_private_and_restored_media_are_not(real_backup, tmp_path, site):
    """Folders 700 and files 600 whatever the umask (data.json holds password hashes); the
    restored media get the permissions of uploads, so the web server can still serve them."""
    source = real_backup.parent
    env = site_env(f"sqlite:///{source / 'source.sqlite3'}", source / "media")
    old = os.umask(0o002)
    try:
        manage(env, "backup", str(tmp_path / "private"))
    finally:
        os.umask(old)
    modes = {
        str(path.relative_to(tmp_path)): stat.S_IMODE(path.stat().st_mode)
        for path in [tmp_path / "private", *(tmp_path / "private").rglob("*")]
    }
    assert {"private/data.json", "private/db.sqlite3", "private/media/covers/cover.png"} <= set(
        modes
    )
    wrong = {
        path: oct(mode)
        for path, mode in modes.items()
        if mode != (0o700 if (tmp_path / path).is_dir() else 0o600)
    }
    assert wrong == {}
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    manage(target, "restore", str(tmp_path / "private"))
    restored = site / "media" / "covers" / "cover.png"
    assert stat.S_IMODE(restored.stat().st_mode) == 0o644  # Django's FILE_UPLOAD_PERMISSIONS
