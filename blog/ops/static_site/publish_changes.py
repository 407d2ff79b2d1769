"""What a publish changes in its target, and in which order:

- Only what changed is sent: a bucket's object when its ETag is not the file's MD5 (:func:`md5`;
  the ETag of an object written in one request, as every object here is, is its MD5: a store
  whose ETags are not MD5s, SSE-KMS, gets every file again), a folder's file when its size and
  modification time differ and then its bytes (:func:`same_file`, like rsync).
- Assets are written before the pages that name them (:func:`assets_first`), and deletions come
  last, so a reader meanwhile meets old pages or new ones, never a page missing its stylesheet.
- What the site no longer has is deleted, but only from a target biji published to (its
  :data:`MARKER` file) or an empty one, unless told to replace what is there.
"""

import hashlib
import shutil
import stat

from blog.ops.static_site.file_headers import SHORT

MARKER = ".biji-published"  # in a target biji publishes to: deleting there is allowed
MARKER_TEXT = b"Published by biji (manage.py publish_site); files here are replaced.\n"


def assets_first(site, names):
    """``names`` in two waves: what pages name (assets, with long lives), then the pages."""
    assets = [n for n in names if site[n].cache_control != SHORT]
    pages = [n for n in names if site[n].cache_control == SHORT]
    return [sorted(assets), sorted(pages)]


def md5(path):
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def same_file(file, destination):
    """Whether ``destination`` already holds ``file``'s bytes: the same size and modification
    time (copies keep it), or the same bytes."""
    try:
        there = destination.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(there.st_mode) or there.st_size != file.size:
        return False
    if there.st_mtime_ns == file.path.stat().st_mtime_ns:
        return True
    with open(file.path, "rb") as ours, open(destination, "rb") as theirs:
        while chunk := ours.read(1 << 20):
            if chunk != theirs.read(len(chunk)):
                return False
    shutil.copystat(file.path, destination)  # next time the quick check answers
    return True
