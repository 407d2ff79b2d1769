"""Zip archives brought to the import page: checked when uploaded, unpacked by the worker.

:func:`check` reads only the archive's directory, so the upload answers at once; :func:`unpack`
checks again and skips, reporting it, a member that cannot be written.
"""

import zipfile
import zlib
from pathlib import Path, PurePosixPath

from django.utils.translation import gettext as _

MAX_FILES = 5000
MAX_UNPACKED_BYTES = 500 * 1024 * 1024


class UnsafeArchive(ValueError):
    pass


def _open(archive):
    try:
        return zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, EOFError):
        raise UnsafeArchive(_("The file is not a zip archive.")) from None


def _checked_members(bundle, root):
    members = bundle.infolist()
    if len(members) > MAX_FILES:
        raise UnsafeArchive(
            _("The archive has too many files (at most %(count)d).") % {"count": MAX_FILES}
        )
    if sum(member.file_size for member in members) > MAX_UNPACKED_BYTES:
        raise UnsafeArchive(
            _("The archive is too large once unpacked (at most %(size)d MB).")
            % {"size": MAX_UNPACKED_BYTES // (1024 * 1024)}
        )
    for member in members:
        name = PurePosixPath(member.filename)
        if (
            name.is_absolute()
            or ".." in name.parts
            or "\\" in member.filename
            or not (root / name).resolve().is_relative_to(root)
        ):
            raise UnsafeArchive(_("The archive contains a path outside its folder."))
    return members


def check(archive):
    """Refuse ``archive`` (a path or file object) with :class:`UnsafeArchive` if unsafe."""
    with _open(archive) as bundle:
        _checked_members(bundle, Path("/nonexistent-import-root"))
    if hasattr(archive, "seek"):
        archive.seek(0)


def unpack(archive, destination):
    """Unpack ``archive`` into ``destination``: (root, [(member, why not unpacked)]), the
    reasons naming no path (the report goes to the author; the folder is private)."""
    root = Path(destination)
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    root = root.resolve()
    skipped = []
    with _open(archive) as bundle:
        for member in _checked_members(bundle, root):
            try:
                bundle.extract(member, root)
            # Damaged data (a CRC or zlib error), an encrypted member, a compression this
            # Python lacks, a name the file system refuses, a file where a folder is: the
            # member is the user's data, whatever fails it, and the others go on.
            except Exception as error:
                try:
                    (root / member.filename).unlink(missing_ok=True)  # a partly written member
                except OSError:
                    pass  # a folder, or a name the file system refuses
                skipped.append((member.filename, _reason(error, root)))
    return root, skipped


def _reason(error, root):
    if isinstance(error, zlib.error | zipfile.BadZipFile | EOFError):
        return _("damaged data (%(error)s)") % {"error": error}
    if isinstance(error, OSError) and error.strerror:
        return error.strerror  # its str() carries the full path
    return str(error).replace(str(root), "") or type(error).__name__
