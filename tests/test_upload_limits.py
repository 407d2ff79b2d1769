"""Uploads are bounded before any pixel is decoded, and re-encoded without metadata.

The reproduction: a 1.2 MB GIF declaring 300 frames of 2000 x 2000 pixels (1.2 billion
pixels) took a worker 30-100 s and up to a gigabyte before it was killed.
"""

import io
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageCms, ImageFile, PngImagePlugin

from blog.images.uploads import RejectedImage, clean_image
from tests.test_editor import upload

pytestmark = pytest.mark.django_db


def declared_gif(size=(2000, 2000), frames=300):
    """A GIF whose every frame is a full ``size`` of one colour: LZW makes each frame ~4 KB,
    so the file is small while decoding it costs ``frames`` x width x height pixels."""
    one = io.BytesIO()
    image = Image.new("P", size, 1)
    image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    image.save(one, "GIF")
    data = one.getvalue()
    flags = data[10]
    start = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    assert data[start : start + 1] == b","  # the image descriptor follows the colour table
    frame = b"\x21\xf9\x04\x04\x0a\x00\x00\x00" + data[start:-1]  # 0.1 s, then keep
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    return b"GIF89a" + data[6:start] + loop + frame * frames + b";"


def animated_gif(frames=5, size=(40, 30), comment=None):
    images = [Image.new("P", size, index % 2) for index in range(frames)]
    for image in images:
        image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    out = io.BytesIO()
    extra = {"comment": comment} if comment else {}
    images[0].save(
        out, "GIF", save_all=True, append_images=images[1:], duration=80, loop=0, **extra
    )
    return out.getvalue()


@pytest.fixture
def decoded_frames(monkeypatch):
    """Counts every frame Pillow decodes."""
    calls = []
    original = ImageFile.ImageFile.load

    def load(self):
        calls.append(self)
        return original(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    return calls


def stored_files(settings):
    root = Path(settings.MEDIA_ROOT)
    return list(root.rglob("*.*")) if root.exists() else []


def test_the_reported_gif_is_refused_at_once_without_decoding(
    staff_client, settings, decoded_frames
):
    data = declared_gif()
    assert len(data) < 1_500_000
    started = time.process_time()  # the work's CPU time, whatever else the machine does
    response = upload(staff_client, "party.gif", data, "image/gif")
    elapsed = time.process_time() - started
    assert response.status_code == 400
    assert "100" in response.json()["image"][0]  # the frame limit is named
    assert decoded_frames == []
    assert elapsed < 2  # it took 30-100 s before; ~30 ms now
    assert stored_files(settings) == []


def test_fewer_frames_but_too_many_pixels_in_all_are_refused(staff_client, decoded_frames):
    # 90 frames pass the frame limit; 90 x 4 million pixels do not.
    response = upload(staff_client, "party.gif", declared_gif(frames=90), "image/gif")
    assert response.status_code == 400
    assert decoded_frames == []


def test_the_limits_are_settings(staff_client, settings):
    settings.BIJI_UPLOAD_MAX_FRAMES = 3
    assert upload(staff_client, "a.gif", animated_gif(frames=4), "image/gif").status_code == 400
    settings.BIJI_UPLOAD_MAX_FRAMES = 100
    settings.BIJI_UPLOAD_MAX_TOTAL_PIXELS = 40 * 30 * 3
    assert upload(staff_client, "a.gif", animated_gif(frames=4), "image/gif").status_code == 400
    settings.BIJI_UPLOAD_MAX_TOTAL_PIXELS = 40 * 30 * 4
    assert upload(staff_client, "a.gif", animated_gif(frames=4), "image/gif").status_code == 200


def test_an_animation_within_the_limits_stays_animated_without_its_comment(staff_client, settings):
    data = animated_gif(frames=6, comment=b"made on my home machine")
    response = upload(staff_client, "loop.gif", data, "image/gif")
    assert response.status_code == 200
    stored = Path(settings.MEDIA_ROOT) / response.json()["url"].removeprefix("/media/")
    raw = stored.read_bytes()
    assert b"home machine" not in raw
    with Image.open(stored) as image:
        assert image.n_frames == 6
        assert "comment" not in image.info
        assert image.info.get("duration") == 80


def test_a_gif_comment_is_stripped_from_a_still_gif(staff_client, settings):
    out = io.BytesIO()
    Image.new("P", (20, 20)).save(out, "GIF", comment=b"secret note")
    response = upload(staff_client, "still.gif", out.getvalue(), "image/gif")
    assert response.status_code == 200
    stored = Path(settings.MEDIA_ROOT) / response.json()["url"].removeprefix("/media/")
    assert b"secret note" not in stored.read_bytes()


# Built once: a profile made now carries the time it was made.
SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def exif_with_everything(orientation=None):
    exif = Image.Exif()
    exif[0x010F] = "Maker Inc"  # Make
    exif[0x0110] = "Model X"  # Model
    exif.get_ifd(0x8769)[0xA431] = "SN-123456"  # BodySerialNumber
    exif.get_ifd(0x8825)[2] = (1.0, 17.0, 30.0)  # GPSLatitude
    if orientation:
        exif[0x0112] = orientation
    return exif.tobytes()


SECRETS = (b"Maker Inc", b"Model X", b"SN-123456", b"a private comment", b"xmp-secret")
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description about="xmp-secret"/></x:xmpmeta>'


def reencoded(data):
    return clean_image(SimpleUploadedFile("image", data))


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_metadata_is_dropped_and_the_colour_profile_kept(fmt):
    image = Image.new("RGB", (40, 30), (10, 120, 200))
    out = io.BytesIO()
    options = {"exif": exif_with_everything(), "icc_profile": SRGB}
    if fmt == "JPEG":
        options.update(comment=b"a private comment", xmp=XMP)
    elif fmt == "PNG":
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", "a private comment")
        info.add_itxt("XML:com.adobe.xmp", XMP.decode())
        options["pnginfo"] = info
    else:
        options["xmp"] = XMP
    image.save(out, fmt, **options)
    for secret in SECRETS[:3]:
        assert secret in out.getvalue()  # the test file does carry them

    clean = reencoded(out.getvalue())
    for secret in SECRETS:
        assert secret not in clean.data
    with Image.open(io.BytesIO(clean.data)) as result:
        assert not result.getexif()
        assert result.info.get("icc_profile") == SRGB
        assert "xmp" not in result.info and "comment" not in result.info


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "PNG"])
def test_orientation_is_applied_then_dropped(fmt):
    # A landscape sensor image the camera says to turn 90° clockwise (orientation 6).
    image = Image.new("RGB", (40, 30), (255, 0, 0))
    image.paste((0, 0, 255), (0, 0, 20, 30))  # left half blue
    out = io.BytesIO()
    image.save(out, fmt, exif=exif_with_everything(orientation=6))
    clean = reencoded(out.getvalue())
    with Image.open(io.BytesIO(clean.data)) as result:
        assert result.size == (30, 40)
        assert (clean.width, clean.height) == (30, 40)
        assert 0x0112 not in result.getexif()
        top = result.convert("RGB").getpixel((15, 5))
        assert top[2] > 200 and top[0] < 60  # the blue left half is now on top


def test_a_jpeg_keeps_its_quality_when_nothing_is_turned():
    image = Image.effect_noise((64, 64), 40).convert("RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=60, exif=exif_with_everything())
    clean = reencoded(out.getvalue())
    with Image.open(io.BytesIO(clean.data)) as result, Image.open(out) as original:
        assert result.quantization == original.quantization


def test_refusals_are_rejected_images_for_every_caller():
    with pytest.raises(RejectedImage):
        reencoded(declared_gif())
