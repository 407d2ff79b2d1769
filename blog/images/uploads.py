"""Uploaded images: verified by Pillow, re-encoded without metadata, stored under a random name. The
bytes decide, never the Content-Type; limits (``BIJI_UPLOAD_MAX_*``) are checked from the header
before decoding; the EXIF orientation is applied before EXIF is dropped."""

import errno
import io
import logging
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from django.utils.translation import gettext as _
from PIL import GifImagePlugin, Image, ImageOps, JpegImagePlugin, UnidentifiedImageError

from blog.images import variant_tasks
from blog.images.store_errors import StoreUnavailable
from blog.models.images import markdown_url

logger = logging.getLogger(__name__)

# Pillow format name → stored extension. SVG is not here on purpose: it can carry script.
# MPO is what Pillow calls a JPEG with extra frames (many phone cameras): stored as a JPEG.
ALLOWED_FORMATS = {"JPEG": "jpg", "MPO": "jpg", "PNG": "png", "WEBP": "webp", "GIF": "gif"}
ORIENTATION = 0x0112
# Per-frame details an animation needs; everything else in ``Image.info`` is dropped.
ANIMATION_KEYS = ("duration", "loop", "disposal", "blend", "background", "transparency")

# GIF frames after the first keep their palette unless it changes. Pillow's default turns them
# into RGB, and saving them again then quantizes every frame: 5x slower (12 frames of
# 2000 x 2000: 4.6 s instead of 0.9 s).
GifImagePlugin.LOADING_STRATEGY = GifImagePlugin.LoadingStrategy.RGB_AFTER_DIFFERENT_PALETTE_ONLY


class RejectedImage(ValueError):
    """The upload is not an image biji stores; the message is shown to the author."""


class NotStored(OSError):
    """The server could not write the image; nothing of it was kept. The message is shown to
    the author; ``status`` is the editor's answer (507: no room; 503: the store away)."""

    status = 507

    @classmethod
    def because(cls, error):
        """The author's message for the storage's ``error``, which is logged for the operator."""
        logger.error("An uploaded image was not stored: %s", error)
        if isinstance(error, StoreUnavailable):
            unavailable = cls(
                _(
                    "The media store could not be reached, so the image was not saved. Try "
                    "again in a moment; if it fails again, tell the site's administrator."
                )
            )
            unavailable.status = 503
            return unavailable
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            return cls(
                _(
                    "The server's disk is full, so the image was not saved. Ask the site's "
                    "administrator to free some space, then upload it again."
                )
            )
        return cls(
            _(
                "The server could not save the image. Try again in a moment; if it fails "
                "again, tell the site's administrator."
            )
        )


@dataclass(frozen=True)
class CleanImage:
    """A verified, re-encoded image, ready to be stored."""

    data: bytes
    extension: str
    width: int
    height: int

    def random_name(self):
        return f"{secrets.token_urlsafe(12)}.{self.extension}"


@dataclass(frozen=True)
class StoredImage:
    name: str
    url: str  # what Markdown names it by, /media/<name>: the render step gives the storage's URL
    width: int
    height: int


def _check_size(image):
    """Refuse from the header alone: no pixel has been decoded yet."""
    width, height = image.size
    if width * height > settings.BIJI_UPLOAD_MAX_PIXELS:
        raise RejectedImage(_("The image has too many pixels."))
    # Counting frames reads the frame headers and skips their compressed data.
    frames = getattr(image, "n_frames", 1)
    if frames > settings.BIJI_UPLOAD_MAX_FRAMES:
        limit = settings.BIJI_UPLOAD_MAX_FRAMES
        raise RejectedImage(
            _("The animation has too many frames (at most %(limit)s).") % {"limit": limit}
        )
    if frames * width * height > settings.BIJI_UPLOAD_MAX_TOTAL_PIXELS:
        raise RejectedImage(_("The animation is too large: fewer or smaller frames, please."))
    return frames


def _open_verified(data):
    try:
        with Image.open(io.BytesIO(data)) as probe:
            probe.verify()  # checks structure and checksums without decoding pixels
        image = Image.open(io.BytesIO(data))
        if image.format not in ALLOWED_FORMATS:
            raise RejectedImage(_("Only JPEG, PNG, WebP and GIF images can be uploaded."))
        frames = _check_size(image)
        image.load()  # decodes every pixel: a valid header on garbage fails here
        return image, frames
    except RejectedImage:
        raise
    except (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        OSError,
        SyntaxError,
        ValueError,
        EOFError,
    ) as error:
        raise RejectedImage(_("The file is not an image that can be read.")) from error


def _upright(image):
    """The pixels turned as the EXIF orientation says, and whether anything was turned."""
    try:
        orientation = image.getexif().get(ORIENTATION, 1)
    except Exception:  # noqa: BLE001 - unreadable EXIF is dropped anyway
        orientation = 1
    if orientation in range(2, 9):
        return ImageOps.exif_transpose(image), True
    return image, False


def _reencode(image, frames, lossless=False):
    """Encode ``image`` again in its own format with no metadata but its colour profile;
    ``lossless`` keeps a lossless WebP lossless."""
    fmt = "JPEG" if image.format == "MPO" else image.format
    icc = image.info.get("icc_profile") or None
    out = io.BytesIO()
    # Each save names every metadata key Pillow would otherwise carry over from ``info``
    # (JPEG and GIF comments): explicit empty values win.
    if fmt == "JPEG":
        upright, turned = _upright(image)
        options = {"quality": 90}
        if not turned and image.format == "JPEG":
            options = {"quality": "keep", "subsampling": "keep"}
        elif getattr(image, "quantization", None):
            options = {
                "qtables": image.quantization,
                "subsampling": JpegImagePlugin.get_sampling(image),
            }
        if upright.mode not in ("RGB", "L", "CMYK"):
            upright = upright.convert("RGB")
        upright.save(out, "JPEG", exif=b"", comment=b"", icc_profile=icc, **options)
    elif frames > 1:
        # Animations are not turned (GIF has no EXIF orientation; animated PNG/WebP rarely do).
        for key in list(image.info):
            if key not in ANIMATION_KEYS:
                del image.info[key]
        options = {"exif": b"", "comment": b""}
        if fmt == "WEBP":
            options = {"exif": b"", "xmp": b"", "quality": 90, "lossless": lossless}
        if icc and fmt != "GIF":
            options["icc_profile"] = icc
        image.save(out, fmt, save_all=True, **options)
    else:
        upright, _turned = _upright(image)
        upright.info = {k: v for k, v in image.info.items() if k in ("transparency",)}
        if fmt == "GIF":
            upright.save(out, "GIF", comment=b"")
        elif fmt == "PNG":
            upright.save(out, "PNG", icc_profile=icc)  # no text, eXIf or iTXt chunks
        else:
            upright.save(
                out, "WEBP", exif=b"", xmp=b"", icc_profile=icc, quality=90, lossless=lossless
            )
    return out.getvalue()


def clean_image(uploaded_file):
    """Verify and re-encode an uploaded file; raise :class:`RejectedImage` with a reason."""
    if uploaded_file.size is not None and uploaded_file.size > settings.BIJI_UPLOAD_MAX_BYTES:
        limit = settings.BIJI_UPLOAD_MAX_BYTES // (1024 * 1024)
        raise RejectedImage(_("The image is larger than %(limit)s MB.") % {"limit": limit})
    uploaded_file.seek(0)
    data = uploaded_file.read(settings.BIJI_UPLOAD_MAX_BYTES + 1)
    if not data:
        raise RejectedImage(_("The file is empty."))
    if len(data) > settings.BIJI_UPLOAD_MAX_BYTES:
        limit = settings.BIJI_UPLOAD_MAX_BYTES // (1024 * 1024)
        raise RejectedImage(_("The image is larger than %(limit)s MB.") % {"limit": limit})
    image, frames = _open_verified(data)
    with image:
        try:
            # A lossless WebP has a VP8L chunk (after the VP8X header and ICC when extended).
            lossless = image.format == "WEBP" and data.find(b"VP8L", 12) != -1
            encoded = _reencode(image, frames, lossless)
        except (OSError, ValueError, EOFError) as error:
            raise RejectedImage(_("The file is not an image that can be read.")) from error
    with Image.open(io.BytesIO(encoded)) as stored:
        width, height = stored.size
    return CleanImage(encoded, ALLOWED_FORMATS[image.format], width, height)


def store_image(uploaded_file, register=True):
    """Verify, re-encode, store and register an editor upload; raise :class:`RejectedImage` or
    :class:`NotStored` with a reason. ``register=False`` for a copy made only to check a file."""
    image = clean_image(uploaded_file)
    path = f"uploads/{timezone.now():%Y/%m}/{image.random_name()}"
    try:
        name = default_storage.save(path, ContentFile(image.data))
    except OSError as error:
        raise NotStored.because(error) from error
    if register:
        variant_tasks.register(name, image.width, image.height)
    return StoredImage(name=name, url=markdown_url(name), width=image.width, height=image.height)


def store_cover(cover, image):
    """Write a note's new cover now, not when the note is saved, so that a failure is the form's to
    show; register it. Raises :class:`NotStored`."""
    try:
        cover.save(image.random_name(), ContentFile(image.data), save=False)
    except OSError as error:
        raise NotStored.because(error) from error
    variant_tasks.register(cover.name, image.width, image.height)
