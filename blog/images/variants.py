"""The smaller copies of a stored image that a page offers screens narrower than it.

For an :class:`~blog.models.ImageFile`, :func:`make_variants` writes one file per width of
:data:`WIDTHS` narrower than the image (never wider: a variant is never upscaled) in each
format of :data:`FORMATS`, and records them in the row (``variants``, ``variants_made_at``).
The original (re-encoded once, when it entered biji) stays as it is: it is every page's
fallback and the largest candidate of every ``srcset`` (:mod:`blog.rendering.pictures`).

Names: ``variants/<the original's name>-<width>.<format>``, e.g.
``variants/uploads/2026/12/Xy3.jpg-480.avif``, beside the original's own folders. The whole
name is kept, extension included, so that ``a.jpg`` and ``a.png`` of one folder (an import
may restore both) never share a variant; the media library and imports, which look in
``uploads/`` and ``covers/``, never see them.

Idempotent: a variant whose file exists and is newer than the original is kept; one that is
missing (deleted, lost with a disk) or older than its original (the file was replaced) is
made again, and files of variants no longer wanted (the image's size changed) are deleted.
A second run writes nothing.

An original that cannot be read or encoded is the image's fault: logged, and the page serves
the original. A variant that cannot be written (a full disk) is the server's: the error is
raised and the row left as it was, so the task runs again later
(:mod:`blog.images.variant_tasks`); the storage leaves no part of a file
(:mod:`blog.images.storage`).

Quality, measured with Pillow 13 (libavif, libwebp) on a 4000 × 3000 photo-like image
(``benchmarks/photos.py``) and a 2400 × 1500 plot with text, each scaled to the width, against
JPEG at quality 85 of the same pixels (bytes, PSNR):

==========  ===============  ==================  =============
width       JPEG q85         AVIF q60, speed 6   WebP q82, m4
==========  ===============  ==================  =============
photo 480   38 KB, 29.8 dB   24 KB, 30.6 dB      31 KB, 31.0 dB
photo 960   133 KB, 32.5 dB  71 KB, 33.2 dB      97 KB, 33.2 dB
photo 1600  356 KB, 34.4 dB  178 KB, 34.3 dB     222 KB, 34.1 dB
plot 1600   181 KB, 40.4 dB  25 KB, 40.9 dB      77 KB, 42.1 dB
==========  ===============  ==================  =============

AVIF at quality 60 matches the JPEG's fidelity at half its bytes (a seventh on flat plots,
where text stays sharp); WebP at 82 at about two thirds. Speed 6 (libavif's default) takes
0.7-1.3 s for the 1600 px photo on this 2-core machine; speed 8 is 5× faster but 5-10 %
larger on photos and more than twice as large on plots: the runner has the time, readers pay
the bytes. Quality 55 saves another 15 % at 0.3-0.6 dB below the JPEG.

Animations (GIF, animated WebP or PNG) get no variants: resizing every frame of an animation
costs far more than its page gains (frames × pixels are bounded by
``BIJI_UPLOAD_MAX_TOTAL_PIXELS``, bytes by ``BIJI_UPLOAD_MAX_BYTES``), and animated AVIF is the
least supported of the formats. The page serves the original with its size.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import io
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from PIL import Image, ImageOps, UnidentifiedImageError

from blog.models import ImageFile

logger = logging.getLogger(__name__)

WIDTHS = (480, 720, 960, 1600)
FORMATS = ("avif", "webp")
FOLDER = "variants"
# format → (Pillow's name, encoder options): see the measurements above.
ENCODERS = {
    "avif": ("AVIF", {"quality": 60, "speed": 6}),
    "webp": ("WEBP", {"quality": 82, "method": 4}),
}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# What reading an image may raise: not an image, truncated, too large, gone.
UNREADABLE = (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError, EOFError)


def variant_name(name, width, fmt):
    return f"{FOLDER}/{name}-{width}.{fmt}"


def is_variant(name):
    return name.startswith(f"{FOLDER}/")


def planned(name, width, height):
    """The variants an image of ``width`` × ``height`` gets, smallest first, as ``ImageFile``
    records them: ``{"format", "width", "height", "name"}``."""
    return [
        {
            "format": fmt,
            "width": w,
            "height": max(1, round(height * w / width)),
            "name": variant_name(name, w, fmt),
        }
        for w in WIDTHS
        if w < width
        for fmt in FORMATS
    ]


def displayed_size(image):
    """The size a browser shows the image at: EXIF orientation applied (width and height
    swap for a photo taken upright). biji's own files carry no EXIF; an operator's may."""
    orientation = image.getexif().get(0x0112, 1)
    width, height = image.size
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def read_size(name, storage=default_storage):
    """(width, height) of a stored image as shown; raises one of :data:`UNREADABLE`."""
    with storage.open(name, "rb") as stored, Image.open(stored) as image:
        return displayed_size(image)


@dataclass
class Outcome:
    """What :func:`make_variants` did for one image."""

    made: list = field(default_factory=list)  # variant names written (or to write, dry run)
    removed: list = field(default_factory=list)  # variant files no longer wanted, deleted
    readable: bool = True  # False: the original is missing or not an image
    changed: bool = False  # the row changed: pages showing the image need a new render

    @property
    def complete(self):
        """Nothing was needed."""
        return self.readable and not (self.made or self.removed or self.changed)


def _modified(name, storage):
    """When the file was last written; None when there is no such file. A storage that
    keeps no times gives the same time for every file: only missing ones are made again."""
    try:
        return storage.get_modified_time(name)
    except NotImplementedError:
        return EPOCH if storage.exists(name) else None
    except OSError:  # FileNotFoundError among them
        return None


def _missing(wanted, original_time, storage):
    """The wanted variants whose file is gone, or older than the original."""
    missing = []
    for variant in wanted:
        made_at = _modified(variant["name"], storage)
        if made_at is None or made_at < original_time:
            missing.append(variant)
    return missing


def _prepared(image):
    """The upright pixels in a mode both encoders take (alpha kept when there is any)."""
    image = ImageOps.exif_transpose(image)
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    return image.convert("RGBA" if has_alpha else "RGB")


def _encode(image, variant, icc):
    pillow_format, options = ENCODERS[variant["format"]]
    small = image.resize(
        (variant["width"], variant["height"]), Image.Resampling.LANCZOS, reducing_gap=3.0
    )
    out = io.BytesIO()
    extra = {"icc_profile": icc} if icc else {}
    small.save(out, pillow_format, exif=b"", xmp=b"", **options, **extra)
    return out.getvalue()


def _write(name, data, storage):
    """Store ``data`` under exactly ``name`` (a stale or half-written file is replaced)."""
    storage.delete(name)
    saved = storage.save(name, ContentFile(data))
    if saved != name:  # another run wrote it meanwhile: the same bytes, keep one
        storage.delete(saved)


def make_variants(image_file, storage=default_storage, dry_run=False):
    """Make the variants of ``image_file`` that are missing or stale, delete those no longer
    wanted, record them in the row; see the module's docstring. Returns an :class:`Outcome`
    (a dry run writes nothing and says what it would do)."""
    outcome = Outcome()
    name = image_file.name
    original_time = _modified(name, storage)
    if original_time is None:
        outcome.readable = False
        return outcome
    size = (image_file.width, image_file.height)
    wanted = planned(name, *size)
    missing = _missing(wanted, original_time, storage)
    if missing:  # the original is opened only when something is to be made
        try:
            wanted, encoded = _encode_missing(image_file, original_time, storage, dry_run)
        except UNREADABLE as error:
            logger.warning("No variants for %s: %s", name, error)
            outcome.readable = False
            return outcome
        if not dry_run:
            for made, data in encoded:
                _write(made, data, storage)  # a full disk raises: run again later
        outcome.made = [made for made, _data in encoded]
    wanted_names = {v["name"] for v in wanted}
    outcome.removed = sorted({v["name"] for v in image_file.variants or ()} - wanted_names)
    outcome.changed = (
        image_file.variants != wanted
        or image_file.variants_made_at is None
        or size != (image_file.width, image_file.height)
    )
    if dry_run or not (outcome.changed or outcome.made):
        return outcome
    for stale in outcome.removed:
        storage.delete(stale)
    image_file.variants = wanted
    image_file.variants_made_at = timezone.now()
    image_file.save(update_fields=["width", "height", "variants", "variants_made_at"])
    return outcome


def _encode_missing(image_file, original_time, storage, dry_run):
    """Open the original once, and encode the variants missing for its actual size (which
    the row is corrected to). Returns (the variants wanted, [(name, bytes)] of those to
    write; the bytes are None in a dry run)."""
    with storage.open(image_file.name, "rb") as stored, Image.open(stored) as image:
        image_file.width, image_file.height = displayed_size(image)
        if getattr(image, "n_frames", 1) > 1:
            return [], []  # an animation: the original is served (see above)
        wanted = planned(image_file.name, image_file.width, image_file.height)
        missing = _missing(wanted, original_time, storage)
        if dry_run or not missing:
            return wanted, [(v["name"], None) for v in missing]
        image.load()
        icc = image.info.get("icc_profile")
        pixels = _prepared(image)
    return wanted, [(v["name"], _encode(pixels, v, icc)) for v in missing]


def forget(name, storage=default_storage):
    """The original ``name`` is deleted: delete its variants' files and its row too."""
    for image_file in ImageFile.objects.filter(name=name):
        for variant in image_file.variants or ():
            storage.delete(variant["name"])
        image_file.delete()
