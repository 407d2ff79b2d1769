"""The editor's endpoints: the live preview (the admin's own view, which editor.js posts to)
and the image upload. Staff authors only, the readers' sanitised rendering, raster images
only, never a 500."""

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from blog.rendering import render_markdown

pytestmark = pytest.mark.django_db

UPLOAD = "/admin/editor/upload/"


def preview_url():
    # The address the widget gives editor.js (data-preview-url): the admin's editor_preview.
    return reverse("admin:blog_note_editor_preview")


def image_bytes(fmt="PNG", size=(40, 30), exif=None, **save_args):
    buffer = io.BytesIO()
    image = Image.new("RGB", size, (200, 40, 40))
    if exif is not None:
        save_args["exif"] = exif
    image.save(buffer, fmt, **save_args)
    return buffer.getvalue()


def upload(client, name, data, content_type="image/png"):
    return client.post(
        UPLOAD,
        {"image": SimpleUploadedFile(name, data, content_type=content_type)},
        headers={"x-requested-with": "XMLHttpRequest"},
    )


def test_anonymous_posts_are_refused(client):
    assert client.post(UPLOAD, {"content": "# hi"}).status_code == 403


def test_a_logged_in_reader_who_is_not_staff_is_refused(client):
    reader = get_user_model().objects.create_user("reader", password="pw-reader-123")
    client.force_login(reader)
    assert client.post(UPLOAD, {"content": "# hi"}).status_code == 403


@pytest.mark.parametrize("logged_in", [False, True], ids=["anonymous", "reader"])
def test_the_preview_sends_anyone_but_staff_to_the_login_page(client, logged_in):
    if logged_in:
        reader = get_user_model().objects.create_user("reader", password="pw-reader-123")
        client.force_login(reader)
    response = client.post(preview_url(), {"content": "## secret draft"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert b"secret draft" not in response.content


def test_staff_who_may_not_write_get_no_preview(client):
    # Staff who may only read notes: the admin lets them in, the preview does not.
    clerk = get_user_model().objects.create_user("clerk", password="pw-clerk-123", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_note"))
    client.force_login(clerk)
    response = client.post(preview_url(), {"content": "## secret draft"})
    assert response.status_code == 403
    assert b"secret draft" not in response.content
    assert client.post(UPLOAD, {}).status_code == 403


def test_anonymous_upload_stores_nothing(client, settings):
    upload(client, "x.png", image_bytes())
    assert not Path(settings.MEDIA_ROOT).exists() or not any(Path(settings.MEDIA_ROOT).rglob("*.*"))


@pytest.mark.parametrize("url", [preview_url, lambda: UPLOAD], ids=["preview", "upload"])
def test_get_is_not_allowed(staff_client, url):
    assert staff_client.get(url()).status_code == 405


@pytest.mark.parametrize(("language", "toc_title"), [("zh-hans", "目录"), ("en", "Contents")])
def test_preview_is_the_readers_rendering(staff_client, language, toc_title):
    body = "[TOC]\n\n## 调度\n\n$E=mc^2$ and `code`\n\n<script>alert(1)</script>"
    response = staff_client.post(preview_url(), {"content": body, "language": language})
    assert response.status_code == 200
    html = response.content.decode()
    assert html == render_markdown(body, toc_title).html
    assert toc_title in html
    assert "<script" not in html
    assert "<math" in html
    assert "no-cache" in response["Cache-Control"]


def test_the_markdownx_style_preview_address_is_gone(staff_client):
    assert staff_client.post("/admin/editor/preview/", {"content": "# hi"}).status_code == 404


def test_a_real_png_is_stored_under_a_random_name(staff_client, settings):
    response = upload(staff_client, "架构图 (v2).png", image_bytes("PNG"))
    assert response.status_code == 200
    data = response.json()
    url = data["url"]
    assert url.startswith("/media/uploads/") and url.endswith(".png")
    assert "架构图" not in url
    assert data["image_code"] == f"![架构图  v2]({url})"
    stored = Path(settings.MEDIA_ROOT) / url.removeprefix("/media/")
    with Image.open(stored) as image:
        assert image.format == "PNG" and image.size == (40, 30)


@pytest.mark.parametrize(
    ("fmt", "extension"), [("JPEG", ".jpg"), ("WEBP", ".webp"), ("GIF", ".gif")]
)
def test_other_raster_formats_keep_their_detected_extension(staff_client, fmt, extension):
    # The browser's name and type say PNG; the bytes decide.
    response = upload(staff_client, "photo.png", image_bytes(fmt))
    assert response.status_code == 200
    assert response.json()["url"].endswith(extension)


def test_gps_camera_and_comments_are_stripped_from_jpeg(staff_client, settings):
    exif = Image.Exif()
    exif[0x010F] = "Test maker"  # Make
    exif[0x0110] = "Test camera"  # Model
    exif.get_ifd(0x8769)[0xA431] = "SERIAL-0042"  # BodySerialNumber
    exif.get_ifd(0x8825)[2] = (1.0, 17.0, 30.0)  # GPSLatitude
    data = image_bytes("JPEG", exif=exif.tobytes(), comment=b"taken at home")
    response = upload(staff_client, "trip.jpg", data)
    assert response.status_code == 200
    stored = Path(settings.MEDIA_ROOT) / response.json()["url"].removeprefix("/media/")
    raw = stored.read_bytes()
    for secret in (b"Test maker", b"Test camera", b"SERIAL-0042", b"taken at home", b"Exif"):
        assert secret not in raw
    with Image.open(stored) as image:
        assert not image.getexif()
        assert "comment" not in image.info


BAD_FILES = {
    "html sent as png": ("evil.png", b"<html><script>alert(1)</script></html>", "image/png"),
    "html file": ("evil.html", b"<!doctype html><script>alert(1)</script>", "text/html"),
    "svg with script": (
        "logo.svg",
        b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">'
        b"<script>alert(1)</script></svg>",
        "image/svg+xml",
    ),
    "png header on garbage": ("fake.png", b"\x89PNG\r\n\x1a\n" + b"\x00garbage" * 200, "image/png"),
    "truncated png": ("cut.png", image_bytes("PNG", size=(300, 300))[:120], "image/png"),
    "empty file": ("empty.png", b"", "image/png"),
    "pdf": ("doc.png", b"%PDF-1.4\n1 0 obj<<>>endobj\n", "image/png"),
}


@pytest.mark.parametrize("case", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_bad_files_are_refused_with_a_message(staff_client, settings, case):
    name, data, content_type = case
    response = upload(staff_client, name, data, content_type)
    assert response.status_code == 400
    message = json.loads(response.content)["image"][0]
    assert message
    assert not Path(settings.MEDIA_ROOT).exists() or not any(Path(settings.MEDIA_ROOT).rglob("*.*"))


def test_an_oversize_file_is_refused(staff_client, settings):
    settings.BIJI_UPLOAD_MAX_BYTES = 1024
    response = upload(staff_client, "big.png", image_bytes("PNG", size=(400, 400)) + b"\0" * 2048)
    assert response.status_code == 400
    assert "MB" in response.json()["image"][0]


def test_a_decompression_bomb_is_refused(staff_client, settings):
    settings.BIJI_UPLOAD_MAX_PIXELS = 100 * 100
    response = upload(staff_client, "bomb.png", image_bytes("PNG", size=(2000, 2000)))
    assert response.status_code == 400


def test_a_post_without_a_file_is_a_400(staff_client):
    response = staff_client.post(UPLOAD, {}, headers={"x-requested-with": "XMLHttpRequest"})
    assert response.status_code == 400
