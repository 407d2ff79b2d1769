"""What this deploy serves: ``BIJI_RELEASE``, or a hash of the code, templates, translations and
static manifest, once per process. It is in every cache key and ETag, so a cache outliving the
processes (Redis) never serves a page of the last release.
"""

import hashlib
from functools import cache
from pathlib import Path

from django.conf import settings

SOURCES = ("blog", "config", "templates")
SUFFIXES = {".py", ".html", ".txt", ".xml", ".mo"}
MANIFEST = "staticfiles.json"  # ManifestStaticFilesStorage's, in STATIC_ROOT


@cache
def fingerprint() -> str:
    """A short text naming this release (cached for the life of the process)."""
    configured = settings.BIJI_RELEASE
    if configured:
        return configured
    return digest_of(Path(settings.BASE_DIR), Path(settings.STATIC_ROOT) / MANIFEST)


def digest_of(base: Path, manifest: Path) -> str:
    digest = hashlib.blake2b(digest_size=6)
    for path in sorted(_sources(base)):
        digest.update(path.relative_to(base).as_posix().encode())
        digest.update(path.read_bytes())
    if manifest.is_file():
        digest.update(manifest.read_bytes())
    return digest.hexdigest()


def _sources(base):
    for folder in SOURCES:
        for path in (base / folder).rglob("*"):
            if path.suffix in SUFFIXES and path.is_file() and "__pycache__" not in path.parts:
                yield path
