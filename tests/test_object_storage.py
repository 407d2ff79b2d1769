"""Media on an object store (MEDIA_S3_BUCKET): uploads, covers, variants, share cards, imported
media and backups go through the storage, pages name the storage's URLs (a CDN domain too), and a
store that does not answer fails an upload with a message while the pages keep serving.

Against a real S3 server, moto's standalone server over HTTP (tests/s3_server.py), one bucket per
test. The gate runs the photo journey; the other cases run in ``make test-interop``
(``BIJI_TEST_INTEROP=1``).
"""

import contextlib
import io
import json
import os
import re
import time

import botocore.endpoint
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from blog.images.card_fonts import card_fonts
from blog.images.variants import planned
from blog.models import ImageFile, Note
from blog.porting.run import import_markdown
from tests import s3_server
from tests.background import run_queued_tasks
from tests.factories import make_note, note_form_data
from tests.processes import manage, migrate, site_env

interop = pytest.mark.skipif(
    not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it"
)
BACKEND = "blog.images.object_storage.ObjectStorage"


def jpeg(width, height, colour=(40, 120, 200)):
    out = io.BytesIO()
    image = Image.new("RGB", (width, height), colour)
    image.paste((250, 200, 40), (0, 0, width // 2, height // 2))
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def on_the_store(settings, bucket, url=None, **options):
    """Make the default storage biji's object storage on ``bucket``."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": BACKEND,
            "OPTIONS": s3_server.storage_options(bucket, url, **options),
        },
    }


@pytest.fixture
def bucket(settings):
    """A bucket of this test's own, the site's media storage."""
    with s3_server.bucket() as name:
        on_the_store(settings, name)
        yield name


@pytest.fixture
def no_store_requests(monkeypatch):
    """Inside ``with no_store_requests():`` any request to the store fails the test."""

    def refused(*args, **kwargs):
        raise AssertionError("a request to the media store while serving a page")

    def forbid():
        monkeypatch.setattr(botocore.endpoint.Endpoint, "make_request", refused)
        return _Undo(monkeypatch)

    return forbid


class _Undo:
    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.monkeypatch.undo()


@contextlib.contextmanager
def store_requests():
    """The requests made to the store inside the block."""
    made, make_request = [], botocore.endpoint.Endpoint.make_request

    def counted(self, *args, **kwargs):
        made.append(args)
        return make_request(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(botocore.endpoint.Endpoint, "make_request", counted)
        yield made


def upload(client, data, name="photo.jpg"):
    file = SimpleUploadedFile(name, data, "image/jpeg")
    return client.post(reverse("editor:upload"), {"image": file})


def image_format(data):
    with Image.open(io.BytesIO(data)) as image:
        return image.format, image.size


# --- the gate's case: the photo journey ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_photo_journey_upload_variants_card_page_on_the_store(
    bucket, staff_client, client, no_store_requests
):
    """An editor upload and a cover go to the bucket, the runner makes their variants and the
    share card there, and the public page names only the storage's URLs, served without a
    request to the store. Markdown names the upload ``/media/<name>`` whatever the storage (the
    render step points it at the store); the store's own URL, pasted, works too."""
    assert card_fonts() is not None, "Noto Sans CJK is missing: run scripts/install-fonts.sh"
    base = f"{s3_server.endpoint()}/{bucket}/"
    response = upload(staff_client, jpeg(1000, 750))
    assert response.status_code == 200, response.content
    url = response.json()["url"]
    assert url.startswith("/media/uploads/") and url.endswith(".jpg")
    name = url.removeprefix("/media/")
    assert image_format(s3_server.read(bucket, name)) == ("JPEG", (1000, 750))

    note = make_note(
        title="GPU 照片",
        slug="photo",
        body=f"![照片]({url})\n\n贴上的地址：![同一张]({base}{name})\n",
        cover=ContentFile(jpeg(800, 600, (200, 40, 40)), name="cover.jpg"),
    )
    cover = Note.objects.get(pk=note.pk).cover.name
    assert cover.startswith("covers/") and cover in s3_server.keys(bucket, "covers/")
    run_queued_tasks()  # variants, the pages showing them rendered again, the card

    keys = s3_server.keys(bucket)
    variants = [v["name"] for v in ImageFile.objects.get(name=name).variants]
    variants += [v["name"] for v in ImageFile.objects.get(name=cover).variants]
    assert len(variants) == 6 + 4 and set(variants) <= set(keys)
    assert image_format(s3_server.read(bucket, f"variants/{name}-480.avif")) == (
        "AVIF",
        (480, 360),
    )
    card = Note.objects.get(pk=note.pk).card
    assert card.startswith("cards/notes/photo-") and card in keys
    assert image_format(s3_server.read(bucket, card)) == ("JPEG", (1200, 630))

    with no_store_requests():
        page = client.get(note.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<meta property="og:image" content="{base}{card}">' in html
    assert f'srcset="{base}variants/{name}-480.avif 480w' in html
    assert f'src="{base}{cover}"' in html and f"{base}variants/{cover}-480.avif" in html
    assert html.count(f'src="{base}{name}"') == 2
    assert "/media/" not in html
    with store_requests() as made:
        (listed,) = staff_client.get(reverse("admin:blog_note_media")).context["uploads"]
    assert len(made) == 1  # one listing gives names, sizes and dates: not two requests a file
    assert (listed.name, listed.url) == (name, base + name)
    assert listed.size == len(s3_server.read(bucket, name))
    assert listed.used_by  # the note names it /media/<name>


# --- make test-interop ---------------------------------------------------------------------


@interop
@pytest.mark.django_db
def test_an_unreachable_store_fails_the_upload_with_a_message_and_pages_keep_serving(
    settings, staff_client, client
):
    with s3_server.bucket() as name:
        on_the_store(settings, name)
        note = make_note(slug="kept", body="![图](/media/uploads/2026/12/a.jpg)\n")
    closed = f"http://127.0.0.1:{s3_server._free_port()}"  # nothing listens there
    on_the_store(settings, "gone", closed)

    started = time.monotonic()
    response = upload(staff_client, jpeg(300, 200))
    assert time.monotonic() - started < 5
    assert response.status_code == 503
    assert "无法连接媒体存储" in response.json()["image"][0]  # "could not be reached"
    library = staff_client.get(reverse("admin:blog_note_media"))
    assert library.status_code == 200 and "无法连接媒体存储" in library.content.decode()

    # The author's note, with a new cover the store cannot take: a form error, the text kept.
    form = note_form_data(note, body="新的正文，不能丢。", cover=upload_file(jpeg(300, 200)))
    answer = staff_client.post(reverse("admin:blog_note_change", args=[note.pk]), form)
    assert answer.status_code == 200
    assert "无法连接媒体存储" in answer.content.decode()
    assert "新的正文，不能丢。" in answer.content.decode()

    # A stored image with its variants: rendering names them from the row, asking the store
    # nothing (a request per variant would fail the save here).
    name = "uploads/2026/12/a.jpg"
    ImageFile.objects.create(name=name, width=1000, height=750, variants=planned(name, 1000, 750))
    note.body = f"![图](/media/{name})\n\n再保存一次。"
    note.save()
    for path in (note.get_absolute_url(), "/", "/feed/"):
        assert client.get(path).status_code == 200, path
    html = Note.objects.get(pk=note.pk).body_html
    assert f'src="{closed}/gone/{name}"' in html
    assert f"{closed}/gone/variants/{name}-480.avif 480w" in html


def upload_file(data):
    return SimpleUploadedFile("cover.jpg", data, "image/jpeg")


@interop
@pytest.mark.django_db(transaction=True)
def test_a_cdn_domain_is_in_every_media_url(settings, staff_client, client):
    assert card_fonts() is not None
    with s3_server.bucket() as name:
        on_the_store(settings, name, custom_domain="media.example.test", location="blog")
        url = upload(staff_client, jpeg(1000, 750)).json()["url"]
        stored = url.removeprefix("/media/")
        assert f"blog/{stored}" in s3_server.keys(name, "blog/uploads/")
        note = make_note(slug="cdn", body=f"![照片]({url})\n")
        run_queued_tasks()
        html = client.get(note.get_absolute_url()).content.decode()
    urls = re.findall(r'(?:src|srcset|content)="(https?://[^" ]+)', html)
    media = [u for u in urls if "/uploads/" in u or "/variants/" in u or "/cards/" in u]
    assert len(media) >= 3 and all(u.startswith("https://media.example.test/blog/") for u in media)
    assert 'og:image" content="https://media.example.test/blog/cards/notes/cdn-' in html


@interop
@pytest.mark.django_db
def test_imported_media_land_in_the_bucket(bucket, tmp_path):
    name = "uploads/2024/01/Kq3.jpg"
    folder = tmp_path / "site"
    (folder / "static/media/uploads/2024/01").mkdir(parents=True)
    (folder / "static/media" / name).write_bytes(jpeg(1300, 700))
    (folder / "static/images").mkdir(parents=True)
    (folder / "static/images/sm.png").write_bytes(png(64, 48))
    (folder / "content/posts").mkdir(parents=True)
    (folder / "content/posts/back.md").write_text(
        '---\ntitle: "Back"\ndate: 2024-01-02T00:00:00Z\n---\n'
        f"![图](/media/{name})\n\n![SM](/images/sm.png)\n",
        "utf-8",
    )
    import_markdown([folder])
    body = Note.objects.get(title="Back").body
    base = f"{s3_server.endpoint()}/{bucket}/"
    assert f"](/media/{name})" in body  # restored at its own name, in the bucket
    new = re.search(r"\]\(/media/(uploads/[^)]+\.png)\)", body)[1]
    assert {name, new} <= set(s3_server.keys(bucket, "uploads/"))
    assert s3_server.read(bucket, name) == (folder / "static/media" / name).read_bytes()
    assert default_storage.exists(new) and ImageFile.objects.filter(name=new).exists()
    html = Note.objects.get(title="Back").body_html
    assert f'src="{base}{name}"' in html and f'src="{base}{new}"' in html


def png(width, height):
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 10)).save(out, "PNG")
    return out.getvalue()


# A site's media written through the storage, as an upload is: an image, a cover-like file in a
# folder of its own, and a note showing the image.
WRITE_MEDIA = """
import io
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from blog.images.uploads import store_image
from blog.models import Note, Status
from django.utils import timezone
out = io.BytesIO()
Image.new("RGB", (900, 600), (200, 40, 40)).save(out, "JPEG")
stored = store_image(SimpleUploadedFile("p.jpg", out.getvalue(), "image/jpeg"))
Note.objects.create(title="On S3", slug="on-s3", language="en", status=Status.PUBLISHED,
                    published_at=timezone.now(), body=f"![p]({stored.url})")
print(stored.name)
"""

SHOW_NOTE = """
from django.test import Client
from blog.models import Note
print(Client().get(Note.objects.get(slug="on-s3").get_absolute_url()).content.decode())
"""


@interop
def test_backup_and_restore_carry_the_media_on_the_store(tmp_path):
    """A site on one bucket backed up, restored into a second site on an empty bucket: the same
    objects, byte for byte, and its pages name the second site's CDN domain. Every MEDIA_S3_*
    variable is read as documented."""
    with s3_server.bucket() as first, s3_server.bucket() as second:
        source = site_env(
            f"sqlite:///{tmp_path / 'a.sqlite3'}",
            tmp_path / "a-media",
            **s3_server.site_environment(first, MEDIA_S3_LOCATION="blog"),
        )
        migrate(source)
        name = manage(source, "shell", "-c", WRITE_MEDIA).split()[-1]
        manage(source, "imagevariants")
        manage(source, "backup", str(tmp_path / "backup"))
        manifest = json.loads((tmp_path / "backup" / "manifest.json").read_text())
        assert name in manifest["media"] and len(manifest["media"]) == len(s3_server.keys(first))
        assert all(key.startswith("blog/") for key in s3_server.keys(first))
        assert not (tmp_path / "a-media").exists()  # nothing on the disk

        target = site_env(
            f"sqlite:///{tmp_path / 'b.sqlite3'}",
            tmp_path / "b-media",
            **s3_server.site_environment(
                second, MEDIA_S3_LOCATION="/blog/", MEDIA_S3_CUSTOM_DOMAIN="media.example.test"
            ),
        )
        manage(target, "restore", str(tmp_path / "backup"))
        assert s3_server.keys(second) == s3_server.keys(first)
        for key in s3_server.keys(first):
            assert s3_server.read(second, key) == s3_server.read(first, key), key
        page = manage(target, "shell", "-c", SHOW_NOTE)
        assert f'src="https://media.example.test/blog/{name}"' in page
        assert f"/{first}/" not in page and "/media/" not in page
