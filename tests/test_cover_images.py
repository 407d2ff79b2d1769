"""A cover image uploaded in the admin goes through the editor's checks: verified, re-encoded
without metadata, orientation applied, stored under a random name with the detected extension."""

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from blog.models import Note
from tests.factories import make_draft, note_form_data

pytestmark = pytest.mark.django_db


def phone_photo():
    """A 40 x 30 sensor image the camera says to turn 90° clockwise, with the camera, its
    serial number, the place it was taken and a comment."""
    image = Image.new("RGB", (40, 30), (255, 0, 0))
    image.paste((0, 0, 255), (0, 0, 20, 30))  # left half blue: on top once turned
    exif = Image.Exif()
    exif[0x010F] = "Maker Inc"  # Make
    exif[0x0110] = "Model X"  # Model
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise
    exif.get_ifd(0x8769)[0xA431] = "SN-123456"  # BodySerialNumber
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2] = "N", (1.0, 17.0, 30.0)  # GPSLatitudeRef, GPSLatitude
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes(), comment=b"our new house")
    return out.getvalue()


def cover(name="IMG_1234 my house.jpg", data=None, content_type="image/jpeg"):
    return SimpleUploadedFile(name, phone_photo() if data is None else data, content_type)


def assert_clean_cover(note, settings):
    assert note.cover.name.startswith("covers/")
    stored = Path(settings.MEDIA_ROOT) / note.cover.name
    name = Path(note.cover.name).name
    assert "IMG_1234" not in name and "house" not in name
    assert name.endswith(".jpg")
    raw = stored.read_bytes()
    for secret in (b"Maker Inc", b"Model X", b"SN-123456", b"our new house", b"Exif"):
        assert secret not in raw
    with Image.open(stored) as image:
        assert not image.getexif()  # no GPS, camera, serial, orientation
        assert "comment" not in image.info
        assert image.size == (30, 40)  # turned upright
        top = image.convert("RGB").getpixel((15, 5))
        assert top[2] > 200 and top[0] < 60


def test_a_cover_added_with_a_new_note_is_cleaned(staff_client, settings):
    data = note_form_data(title="Cover test", slug="cover-test", cover=cover())
    response = staff_client.post(reverse("admin:blog_note_add"), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert_clean_cover(Note.objects.get(slug="cover-test"), settings)


def test_a_cover_changed_on_an_existing_note_is_cleaned(staff_client, settings):
    note = make_draft(title="Old", slug="old-note")
    url = reverse("admin:blog_note_change", args=[note.pk])
    data = note_form_data(note, cover=cover())
    response = staff_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    note.refresh_from_db()
    assert_clean_cover(note, settings)

    # Saving again without a new file keeps the stored cover as it is.
    kept = note.cover.name
    response = staff_client.post(url, note_form_data(note, title="Old again"))
    assert response.status_code == 302
    note.refresh_from_db()
    assert note.cover.name == kept


BAD_COVERS = {
    "html sent as jpeg": (b"<html><script>alert(1)</script></html>", "image/jpeg"),
    "svg": (b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', "image/svg+xml"),
}


@pytest.mark.parametrize("case", BAD_COVERS.values(), ids=BAD_COVERS.keys())
def test_a_file_that_is_not_a_raster_image_is_refused(staff_client, settings, case):
    data, content_type = case
    form = note_form_data(slug="bad-cover", cover=cover("cover.jpg", data, content_type))
    response = staff_client.post(reverse("admin:blog_note_add"), form)
    assert response.status_code == 200
    assert "cover" in response.context["adminform"].form.errors
    assert not Note.objects.filter(slug="bad-cover").exists()


def test_an_animation_over_the_limits_is_refused_as_a_cover(staff_client, settings):
    from tests.test_upload_limits import declared_gif

    form = note_form_data(slug="gif-cover", cover=cover("party.gif", declared_gif(), "image/gif"))
    response = staff_client.post(reverse("admin:blog_note_add"), form)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["cover"]
    assert "100" in errors[0]
    assert not Note.objects.filter(slug="gif-cover").exists()
    root = Path(settings.MEDIA_ROOT)
    assert not root.exists() or not any(root.rglob("*.*"))
