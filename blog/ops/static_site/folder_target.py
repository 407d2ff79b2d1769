"""Publishing to a folder (``folder:/srv/www``, a web server's root or a ``gh-pages`` checkout)
as a mirror of the built site.

Each changed file is written whole (a hidden copy beside it, then a rename), over whatever file,
folder or link is in its way, without following a link out of the target; what the site no
longer has is deleted, and the folders it leaves empty. A folder's ``.git`` and the names given
in ``keep`` are never touched.
"""

import os
import shutil
from pathlib import Path, PurePosixPath

from blog.ops.static_site.publish_changes import MARKER, MARKER_TEXT, assets_first, same_file
from blog.ops.static_site.publish_report import PublishError, Report

KEPT_IN_FOLDERS = (".git",)  # a gh-pages checkout stays one


def publish_to_folder(site, directory, target, *, keep=(), replace=False, force=False):
    keep = set(KEPT_IN_FOLDERS) | set(keep)
    source, target = Path(directory).resolve(), Path(target).absolute()
    resolved = target.resolve()
    if resolved == source or source in resolved.parents or resolved in source.parents:
        raise PublishError(f"{target} and {directory} overlap: publish to a folder of its own.")
    if target.exists() and not target.is_dir():
        raise PublishError(f"{target} is not a folder.")
    report = Report(verb="copied")
    target.mkdir(parents=True, exist_ok=True)
    present, folders = _folder_listing(target, keep)
    foreign = present - {MARKER}
    if (foreign or folders) and MARKER not in present and not replace:
        raise PublishError(
            f"{target} holds {len(foreign)} files biji did not publish: publish to an empty "
            "folder, or pass --replace to replace them with the site (--keep NAME keeps one)."
        )
    changed = []
    for name in sorted(site):
        if _kept(name, keep):
            raise PublishError(f"{name} is in the site and in --keep: keep another name.")
        if not force and same_file(site[name], target / name):
            report.unchanged += 1
        else:
            changed.append(name)
    for wave in assets_first(site, changed):
        for name in wave:
            _make_folders(target, name)
            _copy(site[name], target / name)
            report.uploaded.append(name)
            report.bytes += site[name].size
    (target / MARKER).write_bytes(MARKER_TEXT)
    for name in sorted(present - set(site) - {MARKER}):
        path = target / name
        if path.is_symlink() or path.exists():
            _remove(path)
            report.deleted.append(name)
    for name in sorted(folders, key=lambda n: n.count("/"), reverse=True):
        path = target / name
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
    return report


def _remove(path):
    """Remove ``path`` without following a link out of the target."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _make_folders(target, name):
    """The folders of ``name`` under ``target``, a file or link in their way removed."""
    folder = target
    for part in PurePosixPath(name).parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            folder.unlink()
        folder.mkdir(exist_ok=True)


def _copy(file, destination):
    """Write ``destination`` whole: a hidden copy beside it, then a rename."""
    if destination.is_symlink() or destination.is_dir():
        _remove(destination)
    temporary = destination.with_name(f".{destination.name}.biji-partial")
    try:
        shutil.copy2(file.path, temporary)
        os.replace(temporary, destination)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _kept(name, keep):
    return name.split("/", 1)[0] in keep


def _folder_listing(target, keep):
    """Every file and link under ``target`` by name, and its folders, the kept left out."""
    files, folders = set(), []
    for folder, subfolders, names in os.walk(target):
        here = Path(folder)
        for base in list(subfolders):
            name = (here / base).relative_to(target).as_posix()
            if _kept(name, keep):
                subfolders.remove(base)
            elif (here / base).is_symlink():
                files.add(name)  # a link to a folder: removed as a link, never walked into
            else:
                folders.append(name)
        for base in names:
            name = (here / base).relative_to(target).as_posix()
            if not _kept(name, keep):
                files.add(name)
    return files, folders
