"""The files pages name that are not pages: the collected static files (``STATIC_ROOT``) and the
stored media (uploads, covers, image variants, share cards), copied into the build folder when
the site serves them itself (``STATIC_URL`` and the media URL are paths on it). Media on a
bucket or CDN of their own are named there by the pages and not copied.
"""

import contextlib
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage

from blog.caching import release
from blog.models.images import media_url
from blog.ops.static_site.folder_writer import content_type_of

MEDIA_FOLDERS = ("uploads", "covers", "variants", "cards")


def static_manifest():
    """collectstatic's manifest: without it there are no static files to copy."""
    return Path(settings.STATIC_ROOT) / release.MANIFEST


def static_files(writer):
    """``STATIC_ROOT`` as collected, at ``STATIC_URL`` (when it is a path on this site)."""
    if not settings.STATIC_URL.startswith("/"):
        return
    root = Path(settings.STATIC_ROOT)
    target = settings.STATIC_URL.strip("/")
    for source in sorted(root.rglob("*")):
        if source.is_file():
            path = f"{target}/{source.relative_to(root).as_posix()}"
            writer.copy(source, path, "static")


def media_files(writer, old_files):
    """The stored uploads, covers, image variants and share cards, read through the media
    storage (a folder or a bucket), when pages name them on this site (``/media/``). A file the
    last build copied (``old_files``: its manifest's, ``{}`` to copy every one) whose size and
    modification time are the same is kept."""
    served_at = media_url()
    if not served_at.startswith("/"):
        return
    target = served_at.strip("/")
    for name in stored_files(default_storage, MEDIA_FOLDERS):
        path = f"{target}/{name}"
        seen = {"size": default_storage.size(name), "modified": ""}
        with contextlib.suppress(NotImplementedError, OSError):
            seen["modified"] = default_storage.get_modified_time(name).isoformat()
        record = old_files.get(path, {})
        if (writer.folder / path).is_file() and all(record.get(k) == v for k, v in seen.items()):
            writer.keep(path, "media", content_type_of(path), **seen)
            continue
        with default_storage.open(name, "rb") as stored:
            writer.write(path, stored.read(), "media", content_type_of(path), **seen)


def stored_files(storage, folders):
    """The names of every file below ``folders`` of ``storage`` (missing folders: none)."""
    pending = list(folders)
    while pending:
        folder = pending.pop()
        try:
            subfolders, names = storage.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            continue
        pending.extend(f"{folder}/{sub}" for sub in subfolders)
        yield from (f"{folder}/{name}" for name in sorted(names) if not name.startswith("."))
