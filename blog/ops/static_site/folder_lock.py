"""One ``build_site`` or ``publish_site`` of a folder at a time: two builds writing the same
files, or a publish reading a half-written build, would leave or send a copy that is neither.

Each holds an exclusive ``flock`` on ``DIR/.biji-build.lock`` while it runs; the other fails at
once (:class:`FolderBusy`), touching nothing. The file names the holder's process id for the
message. The lock belongs to the open file, so the system releases it when its process ends,
however it ends: a build that was killed leaves no lock to remove by hand (the file stays, and
means nothing unless a process holds it).
"""

import contextlib
import errno
import fcntl
import os
from pathlib import Path

LOCK = ".biji-build.lock"


class FolderBusy(RuntimeError):
    """Another build or publish of the folder is running."""


@contextlib.contextmanager
def held(folder):
    """The folder ``folder`` (which exists) for this process alone, for the block; raises
    :class:`FolderBusy` at once when another one holds it."""
    descriptor, writable = _open(Path(folder) / LOCK)
    if descriptor is None:
        yield
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(descriptor, 32).decode("ascii", "replace").strip() or "unknown"
            raise FolderBusy(f"another build of {folder} is running (pid {holder})") from None
        if writable:
            os.ftruncate(descriptor, 0)
            os.write(descriptor, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _open(path):
    """The lock file, and whether this process may write it. A publish may read a folder it
    cannot write to (built by another user, mounted read-only): it locks an existing lock file
    opened to read (``flock`` needs no more); where there is none, no build runs, and it goes on
    without."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644), True
    except OSError as error:
        if error.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
    try:
        return os.open(path, os.O_RDONLY), False
    except FileNotFoundError:
        return None, False
