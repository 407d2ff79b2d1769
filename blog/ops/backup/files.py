"""Media files and the manifest: every file of a backup with its SHA-256, and where it may go.

Every path is resolved and must stay inside its folder; :func:`plan_media` checks them all before a
restore writes anything. Folders are 700 and files 600: a backup holds password hashes.
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

from django.conf import settings

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


def copy_media(media_root, target):
    """Copy every file under ``media_root`` into ``target``; {relative path: sha256}."""
    media_root, hashes = Path(media_root).resolve(), {}
    if not media_root.is_dir():
        return hashes
    for source in sorted(media_root.rglob("*")):
        if source.is_file() and not source.is_symlink():
            relative = source.relative_to(media_root).as_posix()
            inside(media_root, relative)  # rglob does not follow linked folders: a safeguard
            destination = inside(target, relative)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
            hashes[relative] = sha256(destination)
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


def plan_media(directory, media_root, manifest):
    """[(source, destination, sha256)] for the backup's media, each path checked and hashed by the
    manifest; ManifestError before anything is written."""
    media = manifest.get("media")
    if not isinstance(media, dict):
        raise ManifestError(f"{MANIFEST} lists no media: not a biji backup.")
    source_root = Path(directory) / "media"
    plan = []
    for relative, digest in sorted(media.items()):
        source = inside(source_root, relative)
        destination = inside(media_root, relative)
        listed = manifest["files"].get(source.relative_to(Path(directory).resolve()).as_posix())
        if listed is None or listed != digest:
            raise ManifestError(
                f"The media file {relative!r} is not among the backup's checked files. "
                "Nothing was restored."
            )
        plan.append((source, destination, digest))
    return plan


def restore_media(plan):
    """Copy the planned media into place, with the permissions uploads get
    (``FILE_UPLOAD_PERMISSIONS``), not the backup's private ones."""
    file_mode = settings.FILE_UPLOAD_PERMISSIONS
    directory_mode = settings.FILE_UPLOAD_DIRECTORY_PERMISSIONS
    for source, destination, digest in plan:
        _make_directories(destination.parent, directory_mode)
        shutil.copyfile(source, destination)
        stat = source.stat()
        os.utime(destination, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        if file_mode is not None:
            os.chmod(destination, file_mode)
        if sha256(destination) != digest:
            raise ManifestError(f"{destination.name} changed while it was copied")
    return len(plan)


def _make_directories(path, mode):
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir()
        if mode is not None:
            os.chmod(folder, mode)
