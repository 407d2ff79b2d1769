"""A note with five 4000 × 3000 photos, as an author would upload them: the page issue 23 is
measured on (``python -m benchmarks images``, tests/browser/test_image_bytes.py).

The photos are made here, by Pillow alone, from a fixed seed, so nothing large is checked in:
a sky-to-ground gradient with a sun and hills, soft blotches (low-resolution noise scaled up)
and a sensor-like grain at full resolution, which is what makes a real photo's JPEG large.
Saved at quality 90 they weigh 1.5-3.5 MB each, under ``BIJI_UPLOAD_MAX_BYTES`` (5 MiB), as a
phone's would. Each takes ~1 s to make.

:func:`make_photo_note` stores them the way the editor's upload does
(:func:`blog.images.uploads.store_image`) and writes a published note showing them, one image
per paragraph between paragraphs of text, so the later ones are below the first screen.
"""

import io
import random
import re
from datetime import timedelta

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from PIL import Image, ImageChops, ImageDraw, ImageFilter

from blog.images.uploads import store_image
from blog.models import Language, Note, Status

WIDTH, HEIGHT = 4000, 3000
PHOTOS = 5
SLUG = "five-photos"
TITLE = "五张照片：4000 × 3000 的相机原图"
PARAGRAPH = (
    "这是一段正文，介绍下面这张照片：在哪里拍的、用什么相机、为什么放在这里。"
    "图片按原样上传，没有先在电脑上缩小。"
)


def _noise(rng, size, mode="L"):
    """Random pixels from ``rng`` (Python's own generator: the same seed, the same image)."""
    bands = len(mode)
    return Image.frombytes(mode, size, rng.randbytes(size[0] * size[1] * bands))


def _gradient(top, bottom):
    """A vertical gradient from colour ``top`` to colour ``bottom`` over the whole photo."""
    ramp = Image.linear_gradient("L").resize((WIDTH, HEIGHT), Image.Resampling.BILINEAR)
    return Image.composite(
        Image.new("RGB", (WIDTH, HEIGHT), bottom), Image.new("RGB", (WIDTH, HEIGHT), top), ramp
    )


def photo(seed):
    """One photo-like 4000 × 3000 RGB image, the same for the same ``seed``."""
    rng = random.Random(seed)

    def colour(low, high):
        return tuple(rng.randint(low, high) for _ in range(3))

    image = _gradient(colour(90, 200), colour(20, 110))
    draw = ImageDraw.Draw(image)
    sun_x, sun_y, radius = rng.randint(400, 3600), rng.randint(300, 1200), rng.randint(150, 400)
    draw.ellipse((sun_x - radius, sun_y - radius, sun_x + radius, sun_y + radius), colour(200, 255))
    for layer in range(3):  # hills, farther ones lighter
        base = 1500 + 400 * layer
        points = [(0, HEIGHT)]
        for x in range(0, WIDTH + 250, 250):
            points.append((x, base + rng.randint(-300, 300)))
        points.append((WIDTH, HEIGHT))
        draw.polygon(points, fill=colour(30 + 20 * (2 - layer), 120 + 30 * (2 - layer)))
    image = image.filter(ImageFilter.GaussianBlur(6))
    # Soft blotches: leaves, clouds, texture of the ground.
    blotches = _noise(rng, (WIDTH // 16, HEIGHT // 16), "RGB").resize(
        (WIDTH, HEIGHT), Image.Resampling.BICUBIC
    )
    image = Image.blend(image, blotches, 0.18)
    detail = _noise(rng, (WIDTH // 4, HEIGHT // 4), "RGB").resize(
        (WIDTH, HEIGHT), Image.Resampling.BICUBIC
    )
    image = Image.blend(image, detail, 0.08)
    # Sensor grain: small, at every pixel.
    grain = _noise(rng, (WIDTH, HEIGHT)).point(lambda v: 128 + (v - 128) // 20)
    grain = Image.merge("RGB", (grain, grain, grain))
    return ImageChops.add(image, grain, scale=1, offset=-128)


def jpeg(seed, quality=90):
    out = io.BytesIO()
    photo(seed).save(out, "JPEG", quality=quality)
    return out.getvalue()


def make_photo_note(slug=SLUG, seed=23, **fields):
    """Store :data:`PHOTOS` photos as editor uploads and publish a note showing them.

    Returns the note; its body names the stored files (``/media/uploads/…``)."""
    blocks = ["照片按上传的原样放在这里，每张都是 4000 × 3000 像素。"]
    for number in range(PHOTOS):
        data = jpeg(seed * 100 + number)
        upload = SimpleUploadedFile(f"DSC_{number:04d}.jpg", data, "image/jpeg")
        stored = store_image(upload)
        blocks += [f"## 第 {number + 1} 张", PARAGRAPH, f"![第 {number + 1} 张照片]({stored.url})"]
    return publish_photo_note("\n\n".join(blocks) + "\n", slug, **fields)


def publish_photo_note(body, slug=SLUG, **fields):
    """The published note showing the stored photos ``body`` names."""
    return Note.objects.create(
        title=TITLE,
        slug=slug,
        language=Language.CHINESE,
        body=body,
        status=Status.PUBLISHED,
        published_at=timezone.now() - timedelta(hours=1),
        **fields,
    )


def stored_names(note):
    """The storage names (``uploads/…``) of the images ``note``'s body shows."""
    prefix = re.escape(settings.MEDIA_URL)
    return re.findall(rf"\]\({prefix}([^)\s]+)\)", note.body)


def original_bytes(note):
    """The stored originals' size: what a page without variants sends."""
    return sum(default_storage.size(name) for name in stored_names(note))
