"""Media files and the manifest: every file of a backup with its SHA-256, and where it may go.

Every path is resolved and must stay inside its folder; :func:`plan_media` checks them all before a
restore writes anything. Folders are 700 and files 600: a backup holds password hashes. Media are
read from and written to the media storage (the disk, or an object store) through its API, under
their storage names.
"""

import hashlib
import json
import os
import posixpath
from pathlib import Path

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.base import ContentFile

MANIFEST = "manifest.json"
PRIVATE_DIRECTORY, PRIVATE_FILE = 0o700, 0o600


class ManifestError(Exception):
    pass


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def inside(root, relative):
    """``root/relative`` resolved, if it stays inside ``root`` (resolved too); else
    ManifestError. The root itself is not a file of it."""
    root = Path(root).resolve()
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        raise ManifestError(
            f"The backup names an invalid path: {relative!r}. Nothing was restored."
        )
    path = (root / relative).resolve()
    if path == root or not path.is_relative_to(root):
        raise ManifestError(
            f"The backup names a path outside its folder: {relative!r} leads to {path}, not "
            f"inside {root}. Nothing was restored: restore only backups you made."
        )
    return path


# --- backup --------------------------------------------------------------------------------
def make_private_directory(directory):
    """Create ``directory`` (and its parents) and make it 700 before anything is written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, PRIVATE_DIRECTORY)


def make_private(directory):
    """Every folder under ``directory`` 700 and every file 600, whatever the umask made them
    (the SQLite copy, pg_dump's file, copied media keep their own modes otherwise)."""
    directory = Path(directory)
    os.chmod(directory, PRIVATE_DIRECTORY)
    for path in directory.rglob("*"):
        if not path.is_symlink():
            os.chmod(path, PRIVATE_DIRECTORY if path.is_dir() else PRIVATE_FILE)


def stored_names(storage, folder=""):
    """Every file's name in ``storage`` under ``folder``, sorted; hidden files left out (a
    ``.part`` a failed write left)."""
    try:
        folders, names = storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):  # no media folder yet
        return []
    found = [posixpath.join(folder, name) for name in names if not name.startswith(".")]
    for sub in folders:
        found += stored_names(storage, posixpath.join(folder, sub))
    return sorted(found)


def copy_media(storage, target):
    """Copy every file of the media ``storage`` into ``target``; {storage name: sha256}."""
    hashes = {}
    for name in stored_names(storage):
        destination = inside(target, name)
        destination.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with storage.open(name, "rb") as source, open(destination, "wb") as copy:
            for block in iter(lambda: source.read(1 << 20), b""):
                digest.update(block)
                copy.write(block)
        hashes[name] = digest.hexdigest()
    return hashes


def write_manifest(directory, manifest):
    directory = Path(directory)
    manifest["files"] = {
        path.relative_to(directory).as_posix(): sha256(path)
        for path in sorted(directory.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


# --- restore -------------------------------------------------------------------------------
def read_manifest(directory):
    """The manifest, once every file it lists is inside the backup, there, with its hash."""
    directory = Path(directory)
    try:
        manifest = json.loads(inside(directory, MANIFEST).read_text())
    except (OSError, ValueError) as error:
        raise ManifestError(f"No readable {MANIFEST} in {directory}: {error}") from error
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(listed, dict):
        raise ManifestError(f"{MANIFEST} in {directory} lists no files: not a biji backup.")
    paths = {relative: inside(directory, relative) for relative in listed}  # all, first
    bad = [
        relative
        for relative, digest in listed.items()
        if not paths[relative].is_file() or sha256(paths[relative]) != digest
    ]
    if bad:
        raise ManifestError(f"Missing or altered files in the backup: {', '.join(bad[:10])}")
    return manifest


def _plain(name):
    """A storage name of named parts (``covers/2026/a.png``): nothing absolute, empty, ``.`` or
    ``..``, which a storage could resolve outside its folder."""
    return "\\" not in name and all(part not in ("", ".", "..") for part in name.split("/"))


def plan_media(directory, storage, manifest):
    """[(source, storage name, sha256)] for the backup's media, each path checked and hashed by the
    manifest, each name by the ``storage`` (a disk's links); ManifestError before anything is
    written."""
    media = manifest.get("media")
    if not isinstance(media, dict):
        raise ManifestError(f"{MANIFEST} lists no media: not a biji backup.")
    source_root = Path(directory) / "media"
    # A disk can be led elsewhere by a link in it; an object store's keys lead nowhere.
    check_name = getattr(storage, "check_name", None)
    plan = []
    for relative, digest in sorted(media.items()):
        source = inside(source_root, relative)
        try:
            if not _plain(relative):
                raise SuspiciousFileOperation(f"{relative!r} is not a plain storage name")
            if check_name is not None:
                check_name(relative)
        except SuspiciousFileOperation as error:
            raise ManifestError(
                f"The backup names a media file the storage would put elsewhere ({error}). "
                "Nothing was restored: restore only backups you made."
            ) from error
        listed = manifest["files"].get(source.relative_to(Path(directory).resolve()).as_posix())
        if listed is None or listed != digest:
            raise ManifestError(
                f"The media file {relative!r} is not among the backup's checked files. "
                "Nothing was restored."
            )
        plan.append((source, relative, digest))
    return plan


def restore_media(plan, storage):
    """Write the planned media into ``storage`` under their names, replacing a file of the same
    name; the storage gives them the permissions uploads get. Raises OSError when the storage
    cannot take one (a full disk, a store that does not answer)."""
    for source, name, digest in plan:
        data = source.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ManifestError(f"{source.name} changed since the backup was checked")
        storage.delete(name)
        saved = storage.save(name, ContentFile(data))
        if saved != name:  # written meanwhile by someone else: ours is the backup's
            storage.delete(saved)
            raise OSError(f"{name} was written by another process during the restore")
    return len(plan)
