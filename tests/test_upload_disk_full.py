"""A media disk that cannot take a file: the author is told why in their language (the editor's
JSON, a form error on the cover), no empty or truncated file is left behind, and the
background writers (image variants, share cards) leave none either and run again later.

The full disk is a real one: a 256 KiB tmpfs mounted on the test's media folder and filled up
(the tests run as root; elsewhere they are skipped). Errors no test can cause for real (an
I/O error, a quota, a permission refused) are raised by Django's file system storage's own
calls, half-way through a write."""

import ctypes
import errno
import io
import os
from pathlib import Path

import pytest
from django.core.files.storage import filesystem
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from PIL import Image

from blog.images.card_fonts import card_fonts
from blog.models import ImageFile, Note, Status
from tests.background import run_queued_tasks
from tests.factories import make_draft, note_form_data

UPLOAD = "/admin/editor/upload/"
MESSAGES = {
    ("full", "en"): "The server's disk is full, so the image was not saved.",
    ("full", "zh-hans"): "服务器磁盘已满，图片没有保存。",
    ("other", "en"): "The server could not save the image.",
    ("other", "zh-hans"): "服务器无法保存这张图片。",
}
FILLER = "filler"
MNT_DETACH = 2
_libc = ctypes.CDLL(None, use_errno=True)


class Disk:
    """The media folder on a small file system of its own."""

    def __init__(self, root: Path):
        self.root = root

    def fill(self, leaving=0):
        """Take all the room but ``leaving`` bytes (rounded to the 4 KiB page)."""
        filler = self.root / FILLER
        descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            while True:
                os.write(descriptor, bytes(4096))
        except OSError as error:
            assert error.errno == errno.ENOSPC
        finally:
            os.close(descriptor)
        if leaving:
            os.truncate(filler, filler.stat().st_size - leaving)

    def free(self):
        (self.root / FILLER).unlink()

    def files(self, under=""):
        """Every file but the filler, hidden ones too."""
        return sorted(
            str(path.relative_to(self.root))
            for path in (self.root / under).rglob("*")
            if path.is_file() and path.name != FILLER
        )


@pytest.fixture
def disk(settings):
    root = Path(settings.MEDIA_ROOT)
    root.mkdir(parents=True)
    if _libc.mount(b"tmpfs", bytes(root), b"tmpfs", 0, b"size=256k,mode=0755") != 0:
        reason = os.strerror(ctypes.get_errno())
        pytest.skip(f"a small tmpfs cannot be mounted here ({reason}): run the tests as root")
    try:
        yield Disk(root)
    finally:
        _libc.umount2(bytes(root), MNT_DETACH)


def noise(fmt="PNG", size=(120, 120)):
    """An image that no encoder makes small: ~40 KB whatever its format."""
    image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    out = io.BytesIO()
    image.save(out, fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return out.getvalue()


def upload(client, language="en"):
    return client.post(
        UPLOAD,
        {"image": SimpleUploadedFile("photo.png", noise(), content_type="image/png")},
        headers={"accept-language": language},
    )


# --- the editor's upload ------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("leaving", [0, 8192], ids=["no room", "room for part of it"])
def test_an_upload_to_a_full_disk_is_refused_in_json_and_leaves_no_file(
    staff_client, disk, leaving, language
):
    disk.fill(leaving=leaving)
    response = upload(staff_client, language)
    assert response.status_code == 507
    assert response["Content-Type"] == "application/json"
    [message] = response.json()["image"]
    assert message.startswith(MESSAGES["full", language])
    assert disk.files() == []  # no empty, truncated or hidden part of the file
    assert not ImageFile.objects.exists()

    disk.free()
    response = upload(staff_client, language)
    assert response.status_code == 200
    [stored] = disk.files()
    assert response.json()["url"].endswith(stored)
    with Image.open(disk.root / stored) as image:
        image.load()  # whole


class HalfWriting:
    """A file whose write puts half of what it is given on the disk, then fails."""

    def __init__(self, file, code):
        self.file, self.code = file, code

    def write(self, data):
        self.file.write(data[: len(data) // 2])
        self.file.flush()
        raise OSError(self.code, os.strerror(self.code))

    def close(self):
        self.file.close()


class FailingOs:
    """``os`` as Django's file system storage sees it, with opening or writing failing."""

    def __init__(self, code):
        self.code = code

    def __getattr__(self, name):
        return getattr(os, name)

    def open(self, path, flags, mode=0o777):
        if self.code == errno.EACCES:  # a folder the server may not write in
            raise OSError(self.code, os.strerror(self.code), path)
        return os.open(path, flags, mode)

    def fdopen(self, descriptor, mode):
        return HalfWriting(os.fdopen(descriptor, mode), self.code)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("code", "kind"),
    [(errno.EDQUOT, "full"), (errno.EIO, "other"), (errno.EACCES, "other")],
    ids=["quota", "i/o error", "permission"],
)
def test_other_write_errors_are_refused_in_json_and_leave_no_file(
    staff_client, settings, monkeypatch, code, kind
):
    monkeypatch.setattr(filesystem, "os", FailingOs(code))
    response = upload(staff_client, "zh-hans")
    assert response.status_code == 507
    assert response.json()["image"][0].startswith(MESSAGES[kind, "zh-hans"])
    root = Path(settings.MEDIA_ROOT)
    assert [path for path in root.rglob("*") if path.is_file()] == []


# --- the cover, in the admin --------------------------------------------------------------


@pytest.mark.django_db
def test_a_cover_on_a_full_disk_is_a_form_error_and_leaves_no_file(staff_client, disk):
    disk.fill(leaving=8192)
    cover = SimpleUploadedFile("cover.jpg", noise("JPEG"), "image/jpeg")
    data = note_form_data(title="带封面的笔记", slug="with-cover", cover=cover)
    response = staff_client.post(
        reverse("admin:blog_note_add"), data, headers={"accept-language": "zh-hans"}
    )
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert list(form.errors) == ["cover"]
    assert form.errors["cover"][0].startswith(MESSAGES["full", "zh-hans"])
    assert "带封面的笔记" in response.content.decode()  # the author's text is still there
    assert not Note.objects.exists() and not ImageFile.objects.exists()
    assert disk.files() == []

    disk.free()
    cover = SimpleUploadedFile("cover.jpg", noise("JPEG"), "image/jpeg")
    data = note_form_data(title="带封面的笔记", slug="with-cover", cover=cover)
    response = staff_client.post(reverse("admin:blog_note_add"), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    note = Note.objects.get(slug="with-cover")
    assert disk.files() == [note.cover.name]
    assert ImageFile.objects.get(name=note.cover.name).width == 120


# --- the background writers ---------------------------------------------------------------


@pytest.fixture
def retried_later(settings):
    """Three attempts, the second ten seconds after the first: not in the same batch."""
    options = {"max_attempts": 3, "retry_delay": 10}
    settings.TASKS = {"default": {**settings.TASKS["default"], "OPTIONS": options}}


def due_again(task_name):
    """The task failed on the full disk and waits for its retry: time passes."""
    [row] = DBTaskResult.objects.exclude(status=TaskResultStatus.SUCCESSFUL).filter(
        task_path__endswith=task_name
    )
    assert row.status == TaskResultStatus.READY  # to be tried again, not failed for good
    assert row.run_after > timezone.now()
    row.run_after = timezone.now()
    row.save(update_fields=["run_after"])


@pytest.mark.django_db(transaction=True)
def test_variants_on_a_full_disk_leave_no_file_and_are_made_on_the_next_try(
    staff_client, disk, retried_later
):
    response = staff_client.post(
        UPLOAD, {"image": SimpleUploadedFile("wide.png", wide_image(), content_type="image/png")}
    )
    assert response.status_code == 200
    [original] = disk.files()
    disk.fill()
    run_queued_tasks()
    assert disk.files("variants") == []
    row = ImageFile.objects.get(name=original)
    assert row.variants == [] and row.variants_made_at is None
    due_again("make_image_variants")

    disk.free()
    run_queued_tasks()
    row.refresh_from_db()
    assert len(row.variants) == 2  # 480 px, AVIF and WebP
    assert disk.files("variants") == sorted(variant["name"] for variant in row.variants)


def wide_image():
    out = io.BytesIO()
    Image.new("RGB", (600, 40), (30, 90, 160)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_card_on_a_full_disk_leaves_no_file_and_is_made_on_the_next_try(disk, retried_later):
    if card_fonts() is None:
        pytest.fail("Noto Sans CJK is missing: run scripts/install-fonts.sh")
    note = make_draft(title="磁盘满了", slug="full")
    run_queued_tasks()
    disk.fill()
    note.status = Status.PUBLISHED
    note.save()
    run_queued_tasks()
    assert disk.files() == []
    assert Note.objects.get(pk=note.pk).card == ""
    due_again("make_cards")

    disk.free()
    run_queued_tasks()
    card = Note.objects.get(pk=note.pk).card
    assert card.startswith("cards/notes/full-") and disk.files() == [card]
