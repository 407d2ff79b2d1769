"""The files one build leaves in its folder, and how each is written: only when its bytes change
(so an incremental build and the publish after it see only what moved), whole (a hidden copy
renamed into place, so a host serving the folder meanwhile never sends half a file), and the
files of the last build this one no longer holds deleted.

Each file is recorded with its content type and kind (``page``, ``feed``, ``static``, …) for the
manifest (:mod:`.manifest`), which ``publish_site`` serves them by.
"""

import contextlib
import mimetypes
import os
import shutil
import uuid


def content_type_of(path):
    guessed, _ = mimetypes.guess_type(path)
    return guessed or "application/octet-stream"


class FolderWriter:
    """The files of the build folder ``folder`` this build holds (``files``: path -> record),
    what it did to each counted in ``report`` (a :class:`.build_report.Report`)."""

    def __init__(self, folder, report):
        self.folder = folder
        self.report = report
        self.files = {}  # path -> {"content_type", "kind", …}

    def write(self, path, data, kind, content_type, **extra):
        target = self.folder / path
        self.files[path] = {"content_type": content_type, "kind": kind, **extra}
        try:
            if target.is_file() and target.read_bytes() == data:
                self.report.unchanged.add(path)
                return
        except OSError:
            pass
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
        self.report.written.add(path)

    def keep(self, path, kind, content_type, **extra):
        """``path`` as the last build wrote it, still part of this one."""
        self.files[path] = {"content_type": content_type, "kind": kind, **extra}
        self.report.unchanged.add(path)

    def copy(self, source, path, kind):
        """``source`` at ``path``, copied when its size or modification time differ."""
        target = self.folder / path
        self.files[path] = {"content_type": content_type_of(path), "kind": kind}
        stat = source.stat()
        with contextlib.suppress(OSError):
            mine = target.stat()
            if (mine.st_size, mine.st_mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                self.report.unchanged.add(path)
                return
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        self.report.written.add(path)

    def delete_gone(self, old_files, complete):
        """Delete the files the last build wrote (``old_files``, its manifest's) that this one
        did not keep; a build stopped by a bound deletes nothing (it did not see the whole site)
        and lists them still."""
        left = sorted(set(old_files) - set(self.files))
        if not complete:
            for path in left:
                self.files[path] = old_files[path]
            return
        for path in left:
            target = self.folder / path
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
                self.report.deleted.add(path)
            parent = target.parent
            while parent != self.folder and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
