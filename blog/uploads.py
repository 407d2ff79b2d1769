"""Images dropped into the editor: verified by Pillow, re-encoded, stored under a random name.

django-markdownx's own upload view trusts the browser's Content-Type and keeps the file's
extension, so an HTML or SVG file sent as ``image/png`` would be served from the site's own
origin. Here the bytes decide: only raster formats Pillow decodes are accepted, the stored
extension comes from the detected format, and the image is re-encoded, which drops anything
appended to it and the EXIF location.
"""

import io
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from django.utils.translation import gettext as _
from PIL import Image, UnidentifiedImageError

# Pillow format name → stored extension. SVG is not here on purpose: it can carry script.
ALLOWED_FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "GIF": "gif"}
GPS_IFD = 0x8825


class RejectedImage(ValueError):
    """The upload is not an image biji stores; the message is shown to the author."""


@dataclass(frozen=True)
class StoredImage:
    name: str
    url: str
    width: int
    height: int


def _open_verified(data):
    try:
        with Image.open(io.BytesIO(data)) as probe:
            probe.verify()  # checks structure and checksums without decoding pixels
        image = Image.open(io.BytesIO(data))
        if image.format not in ALLOWED_FORMATS:
            raise RejectedImage(_("Only JPEG, PNG, WebP and GIF images can be uploaded."))
        if image.width * image.height > settings.BIJI_UPLOAD_MAX_PIXELS:
            raise RejectedImage(_("The image has too many pixels."))
        image.load()  # decodes every pixel: a valid header on garbage fails here
        return image
    except RejectedImage:
        raise
    except (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        OSError,
        SyntaxError,
        ValueError,
    ) as error:
        raise RejectedImage(_("The file is not an image that can be read.")) from error


def _reencode(image):
    """Encode ``image`` again in its own format, without location metadata."""
    fmt = image.format
    out = io.BytesIO()
    if fmt == "GIF":
        image.save(out, "GIF", save_all=getattr(image, "is_animated", False))
    elif fmt == "PNG":
        image.save(out, "PNG")  # PNG text and eXIf chunks are not carried over
    else:
        exif = image.getexif()
        exif.pop(GPS_IFD, None)
        if fmt == "JPEG":
            image.save(out, "JPEG", quality="keep", exif=exif.tobytes())
        else:
            image.save(out, fmt, quality=90, exif=exif.tobytes())
    return out.getvalue()


def store_image(uploaded_file):
    """Verify and store an uploaded file; raise :class:`RejectedImage` with a reason."""
    if uploaded_file.size > settings.BIJI_UPLOAD_MAX_BYTES:
        limit = settings.BIJI_UPLOAD_MAX_BYTES // (1024 * 1024)
        raise RejectedImage(_("The image is larger than %(limit)s MB.") % {"limit": limit})
    data = uploaded_file.read()
    if not data:
        raise RejectedImage(_("The file is empty."))
    image = _open_verified(data)
    width, height = image.size
    extension = ALLOWED_FORMATS[image.format]
    path = f"uploads/{timezone.now():%Y/%m}/{secrets.token_urlsafe(12)}.{extension}"
    name = default_storage.save(path, ContentFile(_reencode(image)))
    return StoredImage(name=name, url=default_storage.url(name), width=width, height=height)
