"""The smaller AVIF and WebP copies of a stored image, one per width of :data:`WIDTHS` narrower than
it, made idempotently; none for animations. Quality figures: docs/performance.md.

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
    """Make the missing or stale variants of ``image_file``, delete unwanted ones and record them.
    Returns an :class:`Outcome`; a dry run writes nothing."""
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
    """Open the original once and encode the variants missing for its actual size. Returns (the
    variants wanted, [(name, bytes or None in a dry run)])."""
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
