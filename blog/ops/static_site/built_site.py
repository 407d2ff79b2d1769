"""The folder ``build_site`` wrote, as ``publish_site`` reads it: every file of the site, each
with how it is to be served (:mod:`.file_headers`), from the build's manifest
(``.biji-build.json``, format 1: ``{"complete": …, "files": {"path": {"content_type", "kind",
"url"}}}``). An unfinished build is refused; the manifest itself, the lock of a build running
(:mod:`.folder_lock`) and the hidden files a build writes before renaming them into place are
never part of the site.
"""

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from blog.ops.static_site.file_headers import cache_control, content_type, redirect_target
from blog.ops.static_site.folder_lock import LOCK
from blog.ops.static_site.publish_changes import MARKER
from blog.ops.static_site.publish_report import PublishError

MANIFEST = ".biji-build.json"  # written by build_site; never published
FORMAT = 1  # of the manifest build_site writes
# What a build writes before renaming it into place: never part of a site.
PARTIAL = re.compile(r"^\..+\.(?:tmp|biji-partial)$")


@dataclass(frozen=True)
class SiteFile:
    name: str  # relative, with forward slashes: en/notes/x/index.html
    path: Path
    size: int
    content_type: str
    cache_control: str
    redirect: str | None = None  # where an old URL's page sends the reader


def read_site(directory):
    """Every file of the built folder ``directory`` but the manifest, by name, with how to
    serve it."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PublishError(f"{directory} is not a folder: give the folder build_site wrote.")
    manifest = _manifest(directory)
    site = {}
    for folder, _, names in os.walk(directory):
        for base in names:
            path = Path(folder, base)
            name = path.relative_to(directory).as_posix()
            if name in (MANIFEST, MARKER, LOCK) or PARTIAL.match(base) or not path.is_file():
                continue
            entry = manifest.get(name)
            site[name] = SiteFile(
                name=name,
                path=path,
                size=path.stat().st_size,
                content_type=content_type(name, path, entry),
                cache_control=cache_control(name, entry),
                redirect=redirect_target(path, entry),
            )
    return site


def _manifest(directory):
    path = directory / MANIFEST
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files = manifest.get("files", {})
    except (ValueError, AttributeError, OSError) as error:
        raise PublishError(f"{path} is not a build manifest ({error}); build again.") from error
    if manifest.get("format", FORMAT) != FORMAT:
        raise PublishError(f"{path} is of another biji version's format; build again.")
    if manifest.get("complete") is False:
        raise PublishError(f"The build in {directory} did not finish: build again, then publish.")
    if not isinstance(files, dict):
        raise PublishError(f"{path}: 'files' is not an object; build again.")
    return {name: entry for name, entry in files.items() if isinstance(entry, dict)}
