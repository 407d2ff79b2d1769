"""Files a note refers to: found in the imported folder, verified, stored, links rewritten.

Remote URLs stay links. An export's ``/media/<name>`` that passes the editor's check is
restored at that name with its bytes as they are (re-encoding would break the round trip;
served with ``nosniff``); any other local file or ``data:`` image is stored like an upload.
Nothing outside the folder is read; the same bytes are stored once. Files are written before
the file's transaction; :meth:`MediaStore.record` registers them inside it.
"""

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, unquote_to_bytes, urlsplit

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from blog.images import variant_tasks
from blog.images.uploads import ALLOWED_FORMATS, RejectedImage, store_image
from blog.models.images import markdown_url
from blog.models.imported import ImportedMedia
from blog.porting.report import shorten
from blog.porting.wording import error_text, worded

# Linear in the text, whatever it holds (a body is read before any bound applies): no part of
# a match may hold "[" (nor an <img> tag "<"), so a failed attempt never scans past the next
# place a match could begin, and no part gives back what it took (possessive). A long line of
# "[" or "[](" took quadratic or cubic time otherwise. A link whose text, target or title
# holds "[" is left as it is.
LINK = re.compile(
    r"(?P<bang>!?)\[(?P<text>[^\[\]\n]*+)\]"
    r"\(\s*(?P<url><[^>\[\n]++>|[^)\[\s]++)(?P<rest>[^)\[\n]*+)\)"
)
# A linked image, [![alt](src)](href): LINK rewrites the image, this its link (WordPress's
# "Link to: Media File" points at the full-size upload).
LINKED_IMAGE = re.compile(
    r"(?P<bang>)\[(?P<text>!\[[^\[\]\n]*+\]\([^)\[\n]*+\))\]"
    r"\(\s*(?P<url><[^>\[\n]++>|[^)\[\s]++)(?P<rest>[^)\[\n]*+)\)"
)
IMG_TAG = re.compile(r"""(<img\b[^<>]*?\bsrc=)(["'])([^"'<>]+)\2""", re.IGNORECASE)
REFERENCE = re.compile(r"^(?P<head>[ ]{0,3}\[[^\]\n]+\]:[ \t]*)(?P<url>\S+)", re.MULTILINE)
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".avif", ".tif"}
ASSET_ROOTS = ("static", "source", "")  # Hugo, Hexo, Jekyll/plain: where /x.png lives
MEDIA_DIRS = ("static/media", "source/media", "media")
EXTENSIONS = {"jpeg": "jpg", "jpg": "jpg", "png": "png", "webp": "webp", "gif": "gif"}
DATA_URL = re.compile(
    r"data:(?P<type>[^,;]*)(?P<parameters>(?:;[^,;]*)*?)(?P<base64>;base64)?,(?P<data>.*)",
    re.IGNORECASE | re.DOTALL,
)


def media_prefix():
    return settings.MEDIA_URL if settings.MEDIA_URL.startswith("/") else "/media/"


def is_remote(url):
    return url.startswith("//") or bool(urlsplit(url).scheme)


def is_inline_data(url):
    return url[:5].lower() == "data:"


def is_plain_name(name):
    """A relative path of named parts (``uploads/2025/x.png``): nothing a storage would
    refuse or resolve outside its folder (``/etc/x.png``, ``a//b``, ``../x``, ``a\\b``)."""
    return (
        bool(name)
        and "\\" not in name
        and all(part not in ("", ".", "..") for part in name.split("/"))
    )


@dataclass
class _Pending:
    """What the database is to learn of the files stored for the current file."""

    images: list = field(default_factory=list)  # (name, width, height): to register
    media: dict = field(default_factory=dict)  # sha256 → name: bytes stored once


class MediaStore:
    """Stores one import's files: ``created`` the names written for the current file (deleted
    if its transaction fails), ``pending`` what the database is to learn of them."""

    def __init__(self, site_root, report, dry_run=False):
        self.root = Path(site_root).resolve()
        self.report = report
        self.dry_run = dry_run
        self.created = []
        self.pending = _Pending()

    # --- finding files -------------------------------------------------------------------
    def _inside(self, path):
        try:
            resolved = path.resolve()
        except OSError:
            return None
        return resolved if resolved.is_relative_to(self.root) and resolved.is_file() else None

    def locate(self, url, base_dir, stem=""):
        """The local file ``url`` names, or None."""
        path = unquote(urlsplit(url).path)
        if not path or is_remote(url):
            return None
        if path.startswith("/"):
            candidates = [self.root / top / path.lstrip("/") for top in ASSET_ROOTS]
        else:
            base = Path(base_dir or self.root)
            candidates = [base / path, base / stem / path] if stem else [base / path]
        return next(filter(None, map(self._inside, candidates)), None)

    def media_file(self, url):
        """For ``/media/<name>``: (name, the file in the folder's media directory or None)."""
        path = unquote(urlsplit(url).path)
        prefix = media_prefix()
        if not path.startswith(prefix):
            return None, None
        name = path[len(prefix) :]
        if not is_plain_name(name):
            return "", None  # a media link, but to no file biji would store or read
        found = (self._inside(self.root / top / name) for top in MEDIA_DIRS)
        return name, next(filter(None, found), None)

    # --- storing -------------------------------------------------------------------------
    def store(self, url, base_dir, stem, source, line=None):
        """The stored file's name for the file ``url`` refers to; None to keep the link."""
        if is_inline_data(url):
            return self._store_inline(url, source, line)
        try:
            return self._store_file(url, base_dir, stem, source, line)
        except SuspiciousFileOperation:  # the storage's own check, should a name slip through
            refused = worded(_("%(url)s: not a file biji may read"), url=shorten(url))
            self.report.warn(source, refused, line)
            return None

    def _store_file(self, url, base_dir, stem, source, line):
        name, local = self.media_file(url)
        if name == "":
            outside = worded(_("%(url)s: not a file of the media folder"), url=shorten(url))
            self.report.warn(source, outside, line)
            return None
        if name is not None:
            if local is not None:
                return self._restore(name, local, source, line)
            if not default_storage.exists(name):
                missing = _("%(url)s: not in the folder's media directory")
                self.report.warn(source, worded(missing, url=url), line)
            return None
        path = self.locate(url, base_dir, stem)
        if path is None:
            return None
        return self._store_new(path, source, line)

    def _verified(self, path, source, line):
        """(bytes, detected extension, (width, height)), or (None, None, None) when refused:
        the editor's check decides, its re-encoded copy deleted again here."""
        data = path.read_bytes()
        stored = self._store_image(data, path.name, source, line, register=False)
        if stored is None:
            return None, None, None
        default_storage.delete(stored.name)
        return data, PurePosixPath(stored.name).suffix.lstrip("."), (stored.width, stored.height)

    def _store_image(self, data, filename, source, line, what=None, register=True):
        """:func:`store_image`'s stored file, or None when refused (reported as ``what``, by
        default the file's name). A dry run registers nothing (it deletes the file)."""
        try:
            stored = store_image(ContentFile(data, name=filename), register=False)
        except RejectedImage as error:
            refused = _("%(file)s: not imported: %(reason)s")
            what = what or shorten(filename)
            self.report.warn(source, worded(refused, file=what, reason=error_text(error)), line)
            return None
        if register and not self.dry_run:
            self.pending.images.append((stored.name, stored.width, stored.height))
        return stored

    def _store_inline(self, url, source, line):
        """An inline ``data:`` image, decoded and stored like a file; None when refused."""
        match = DATA_URL.fullmatch(url)
        kind = shorten(match["type"], 40) if match and match["type"] else _("no type")
        what = worded(
            ngettext_lazy(
                "inline image (%(type)s, %(count)s character)",
                "inline image (%(type)s, %(count)s characters)",
                len(url),
            ),
            type=kind,
            count=f"{len(url):,}",
        )
        limit = settings.BIJI_UPLOAD_MAX_BYTES
        if match is None:
            self.report.warn(
                source, worded(_("%(image)s: not a data: URL; removed"), image=what), line
            )
            return None
        if len(match["data"]) * 3 // 4 > limit + 3:  # decoding would only find it too large
            too_large = _("%(image)s: not imported: larger than %(limit)d MB; removed")
            self.report.warn(
                source, worded(too_large, image=what, limit=limit // 1024 // 1024), line
            )
            return None
        try:
            if match["base64"]:
                data = base64.b64decode("".join(match["data"].split()), validate=True)
            else:
                data = unquote_to_bytes(match["data"])
        except (binascii.Error, ValueError):
            self.report.warn(
                source, worded(_("%(image)s: not valid base64; removed"), image=what), line
            )
            return None
        return self._store_once(data, "inline-image", source, line, what)

    def _remember(self, data, name):
        if not self.dry_run:
            self.pending.media[hashlib.sha256(data).hexdigest()] = name

    def _known(self, data):
        digest = hashlib.sha256(data).hexdigest()
        if digest in self.pending.media:  # stored for this file, not yet recorded
            return self.pending.media[digest]
        known = ImportedMedia.objects.filter(sha256=digest).first()
        return known.name if known and default_storage.exists(known.name) else None

    def _store_new(self, path, source, line):
        return self._store_once(path.read_bytes(), path.name, source, line)

    def _store_once(self, data, filename, source, line, what=None):
        """The stored name of ``data``: an earlier import's copy if there is one, else a new
        file (checked as an image; a dry run deletes it again and remembers nothing)."""
        if name := self._known(data):
            return name
        stored = self._store_image(data, filename, source, line, what)
        if stored is None:
            return None
        if self.dry_run:
            default_storage.delete(stored.name)
            return stored.name
        self.created.append(stored.name)
        self._remember(data, stored.name)
        return stored.name

    def _restore(self, name, path, source, line):
        data, detected, size = self._verified(path, source, line)
        if data is None:
            return None
        extension = EXTENSIONS.get(PurePosixPath(name).suffix.lower().lstrip("."))
        if extension != detected:
            mismatch = _("%(name)s: the name does not match its %(format)s data")
            self.report.warn(source, worded(mismatch, name=name, format=detected), line)
            return self._store_new(path, source, line)
        if default_storage.exists(name):
            with default_storage.open(name, "rb") as existing:
                if existing.read() == data:
                    return name
            return self._store_new(path, source, line)  # another file holds the name
        if not self.dry_run:
            saved = default_storage.save(name, ContentFile(data))
            self.created.append(saved)
            self._remember(data, saved)
            self.pending.images.append((saved, *size))  # its size and variants, as for an upload
            return saved
        return name

    def record(self):
        """Inside the file's transaction: the files stored for it, registered (their size,
        their variants queued after the commit) and remembered by their bytes."""
        for name, width, height in self.pending.images:
            variant_tasks.register(name, width, height)
        for digest, name in self.pending.media.items():
            ImportedMedia.objects.update_or_create(sha256=digest, defaults={"name": name})

    def kept(self):
        """The file's transaction committed: its files stay."""
        self.created = []
        self.pending = _Pending()

    def discard_created(self):
        """Delete the files stored for a file that was not stored."""
        for name in self.created:
            default_storage.delete(name)
        self.created = []
        self.pending = _Pending()

    # --- bodies --------------------------------------------------------------------------
    def rewrite(self, body, base_dir, stem, source, first_line=1):
        """``body`` with local file links pointing at stored media."""

        def line_of(offset):
            return first_line + body.count("\n", 0, offset)

        def target(url, offset, image):
            bare = url.strip("<>")
            if is_inline_data(bare):  # stored, or removed when refused (said in the report)
                name = self._store_inline(bare, source, line_of(offset))
                return markdown_url(name) if name else ""
            if is_remote(bare):
                if image:
                    self.report.remote_images.append((source, bare))
                return url
            if bare.startswith("#") or bare.startswith("mailto:"):
                return url
            name = self.store(bare, base_dir, stem, source, line_of(offset))
            if name is None:
                if image and self.locate(bare, base_dir, stem) is None:
                    if self.media_file(bare)[0] is None:
                        missing = worded(_("image not found: %(url)s"), url=shorten(bare))
                        self.report.warn(source, missing, line_of(offset))
                return url
            return markdown_url(name)

        def link(match):
            image = (
                match["bang"] == "!"
                or Path(urlsplit(match["url"]).path).suffix.lower() in IMAGE_SUFFIXES
            )
            new = target(match["url"], match.start(), image)
            return f"{match['bang']}[{match['text']}]({new}{match['rest']})"

        def img(match):
            return match[1] + match[2] + target(match[3], match.start(), True) + match[2]

        def reference(match):
            image = Path(urlsplit(match["url"]).path).suffix.lower() in IMAGE_SUFFIXES
            return match["head"] + target(match["url"], match.start(), image)

        body = LINK.sub(link, body)
        body = LINKED_IMAGE.sub(link, body)
        body = IMG_TAG.sub(img, body)
        return REFERENCE.sub(reference, body)


__all__ = ["ALLOWED_FORMATS", "MediaStore", "is_inline_data", "is_remote", "media_prefix"]
