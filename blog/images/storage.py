"""The media storage: Django's file system storage, whose files are whole or not there.

Django's own writes the file under its final name and leaves whatever it wrote when writing
fails (a full disk, a quota, an I/O or permission error): an empty or truncated image that
pages would serve and that the share cards and variants, which keep a file they find, would
never make again. Here every file is written under a hidden name in its own folder
(``.<random>.part``), flushed to the disk, and only then renamed to its name; when anything
fails on the way the partial file is removed and the error raised. A rename within a folder
is atomic: a reader sees the whole file or none.

A process killed while writing (``kill -9``, a power cut) can leave a ``.part`` file behind;
nothing lists or serves those by name (see docs/deployment.md).

May import: nothing of biji's.
"""

import contextlib
import os
import posixpath
import secrets

from django.core.files.storage import FileSystemStorage


class WholeFileStorage(FileSystemStorage):
    def _save(self, name, content):
        folder = posixpath.dirname(name)
        part = posixpath.join(folder, f".{secrets.token_urlsafe(9)}.part")
        try:
            # Django's own write (folders, permissions, group), under the hidden name.
            part = super()._save(part, content)
            _flush_to_disk(self.path(part))
            return self._rename(part, name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(self.path(part))
            raise

    def _rename(self, part, name):
        """Give the written file its name; never over another file (as Django's own write),
        unless the storage was made to overwrite."""
        while True:
            target = self.path(name)
            if self._allow_overwrite or not os.path.lexists(target):
                os.replace(self.path(part), target)
                return os.path.relpath(target, self.location).replace("\\", "/")
            name = self.get_available_name(name)


def _flush_to_disk(path):
    # Without it a crash soon after the rename can leave the name on an empty file.
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
