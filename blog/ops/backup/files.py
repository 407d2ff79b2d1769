"""Media files and the manifest: every file of a backup with its SHA-256."""

import hashlib
import json
import shutil
from pathlib import Path

MANIFEST = "manifest.json"


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def copy_media(media_root, target):
    """Copy every file under ``media_root`` into ``target``; {relative path: sha256}."""
    media_root, hashes = Path(media_root), {}
    if not media_root.is_dir():
        return hashes
    for source in sorted(media_root.rglob("*")):
        if source.is_file() and not source.is_symlink():
            relative = source.relative_to(media_root).as_posix()
            destination = Path(target) / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
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


class ManifestError(Exception):
    pass


def read_manifest(directory):
    """The manifest, once every file it lists is there with its hash."""
    directory = Path(directory)
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        raise ManifestError(f"No readable {MANIFEST} in {directory}: {error}") from error
    bad = [
        relative
        for relative, digest in manifest.get("files", {}).items()
        if not (directory / relative).is_file() or sha256(directory / relative) != digest
    ]
    if bad:
        raise ManifestError(f"Missing or altered files in the backup: {', '.join(bad[:10])}")
    return manifest


def restore_media(directory, media_root, hashes):
    """Copy the backup's media into ``media_root``; each file checked against its hash."""
    source_root, media_root = Path(directory) / "media", Path(media_root)
    for relative, digest in sorted(hashes.items()):
        destination = media_root / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source_root / relative, destination)
        if sha256(destination) != digest:
            raise ManifestError(f"{relative} changed while it was copied")
    return len(hashes)
