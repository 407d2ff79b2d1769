"""The media storage: files written under a hidden ``.part`` name, flushed and renamed, so a file is
whole or not there and a failed write leaves nothing to serve or take as done. No name leads out of
the media folder, not even through a link inside it.

May import: nothing of biji's.
"""

import contextlib
import os
import posixpath
import secrets

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage


class WholeFileStorage(FileSystemStorage):
    def check_name(self, name):
        """Refuse ``name`` (SuspiciousFileOperation) if it leads outside the media folder once links
        are followed: Django's own check reads the name only. A restore asks before it writes."""
        path = super().path(name)
        root = os.path.realpath(self.location)
        resolved = os.path.realpath(path)
        if resolved != root and not resolved.startswith(root.rstrip(os.sep) + os.sep):
            raise SuspiciousFileOperation(f"{name!r} leads outside the media folder, to {resolved}")
        return path

    def path(self, name):
        return self.check_name(name)

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
