"""Every image that enters biji gets smaller AVIF and WebP copies, made in the background, and the
pages showing it follow: widths 480, 720, 960 and 1600 px, never wider than the image, made again
only when missing or stale."""

import io
import os
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django_tasks_db.models import DBTaskResult
from PIL import Image

from blog.caching import pages as page_cache
from blog.images.uploads import store_image
from blog.images.variant_tasks import make_image_variants
from blog.images.variants import forget, make_variants
from blog.models import ImageFile, Note
from blog.porting.run import import_markdown
from tests.background import run_queued_tasks
from tests.factories import make_note, note_form_data
from tests.samples import copy_sample

pytestmark = pytest.mark.django_db


def image_bytes(width, height, fmt="JPEG", mode="RGB", **options):
    image = Image.new(mode, (width, height), (40, 120, 200, 128)[: len(mode)])
    image.paste((250, 200, 40, 255)[: len(mode)], (0, 0, width // 2, height // 2))
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def upload(width, height, fmt="JPEG", name="photo.jpg", **options):
    """An editor upload: stored and registered, as the editor's endpoint does."""
    data = image_bytes(width, height, fmt, **options)
    return store_image(SimpleUploadedFile(name, data, "image/jpeg"))


def media(settings, name):
    return Path(settings.MEDIA_ROOT) / name


def variants_of(stored):
    return ImageFile.objects.get(name=stored.name).variants


def test_an_upload_is_registered_with_its_size_and_its_variants_wait_for_the_runner(settings):
    stored = upload(2000, 1500)
    row = ImageFile.objects.get(name=stored.name)
    assert (row.width, row.height) == (2000, 1500)
    assert row.variants == [] and row.variants_made_at is None
    assert not media(settings, "variants").exists()


def test_four_widths_in_avif_and_webp_beside_the_original(settings):
    stored = upload(2000, 1500)
    outcome = make_variants(ImageFile.objects.get(name=stored.name))
    assert len(outcome.made) == 8
    row = ImageFile.objects.get(name=stored.name)
    assert row.variants_made_at is not None
    assert [(v["format"], v["width"], v["height"]) for v in row.variants] == [
        ("avif", 480, 360),
        ("webp", 480, 360),
        ("avif", 720, 540),
        ("webp", 720, 540),
        ("avif", 960, 720),
        ("webp", 960, 720),
        ("avif", 1600, 1200),
        ("webp", 1600, 1200),
    ]
    for variant in row.variants:
        assert variant["name"] == (f"variants/{stored.name}-{variant['width']}.{variant['format']}")
        with Image.open(media(settings, variant["name"])) as made:
            assert made.format == variant["format"].upper()
            assert made.size == (variant["width"], variant["height"])
    # Smaller than the original, which stays as it was.
    assert media(settings, row.variants[-2]["name"]).stat().st_size < (
        media(settings, stored.name).stat().st_size
    )


@pytest.mark.parametrize(
    ("size", "widths"),
    [
        ((1000, 400), [480, 720, 960]),
        ((960, 300), [480, 720]),
        ((721, 721), [480, 720]),
        ((720, 300), [480]),
        ((481, 481), [480]),
        ((480, 300), []),
    ],
)
def test_a_variant_is_never_as_wide_as_the_image_or_wider(size, widths):
    stored = upload(*size)
    make_variants(ImageFile.objects.get(name=stored.name))
    row = ImageFile.objects.get(name=stored.name)
    assert sorted({v["width"] for v in row.variants}) == widths
    assert row.variants_made_at is not None  # done, even with nothing to make


def test_a_second_run_makes_nothing_and_a_lost_variant_is_made_again(settings):
    stored = upload(1200, 800)
    make_variants(ImageFile.objects.get(name=stored.name))
    files = {v["name"]: media(settings, v["name"]).stat().st_mtime_ns for v in variants_of(stored)}

    again = make_variants(ImageFile.objects.get(name=stored.name))
    assert again.complete and again.made == []
    assert {n: media(settings, n).stat().st_mtime_ns for n in files} == files

    lost = variants_of(stored)[1]["name"]
    media(settings, lost).unlink()
    outcome = make_variants(ImageFile.objects.get(name=stored.name))
    assert outcome.made == [lost]
    assert media(settings, lost).exists()
    assert {n: media(settings, n).stat().st_mtime_ns for n in files if n != lost} == {
        n: t for n, t in files.items() if n != lost
    }


def test_a_replaced_original_gets_new_variants_at_its_new_size(settings):
    stored = upload(1200, 800)
    make_variants(ImageFile.objects.get(name=stored.name))
    # The file replaced under the same name (an operator's copy), newer than its variants.
    media(settings, stored.name).write_bytes(image_bytes(1000, 1000))
    later = time.time() + 5
    os.utime(media(settings, stored.name), (later, later))
    outcome = make_variants(ImageFile.objects.get(name=stored.name))
    row = ImageFile.objects.get(name=stored.name)
    assert (row.width, row.height) == (1000, 1000)
    assert sorted(outcome.made) == sorted(v["name"] for v in row.variants)
    assert [(v["width"], v["height"]) for v in row.variants][::2] == [
        (480, 480),
        (720, 720),
        (960, 960),
    ]


def test_transparency_is_kept_in_both_formats(settings):
    stored = upload(1000, 500, "PNG", name="diagram.png", mode="RGBA")
    make_variants(ImageFile.objects.get(name=stored.name))
    for variant in variants_of(stored):
        with Image.open(media(settings, variant["name"])) as made:
            assert made.mode == "RGBA"
            assert made.getpixel((made.width - 1, made.height - 1))[3] < 255


def test_an_animation_gets_no_variants_and_keeps_its_size(settings):
    frames = [Image.new("P", (800, 600), colour) for colour in (1, 2, 3)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    stored = store_image(SimpleUploadedFile("party.gif", out.getvalue(), "image/gif"))
    outcome = make_variants(ImageFile.objects.get(name=stored.name))
    row = ImageFile.objects.get(name=stored.name)
    assert outcome.made == [] and row.variants == [] and row.variants_made_at is not None
    assert (row.width, row.height) == (800, 600)
    assert not media(settings, "variants").exists()
    assert make_variants(row).complete  # and the next run finds nothing to do


def test_a_missing_original_is_unreadable_not_an_error(settings):
    stored = upload(1200, 800)
    media(settings, stored.name).unlink()
    outcome = make_variants(ImageFile.objects.get(name=stored.name))
    assert not outcome.readable and outcome.made == []


def test_forgetting_a_deleted_original_deletes_its_variants_and_row(settings):
    stored = upload(1200, 800)
    make_variants(ImageFile.objects.get(name=stored.name))
    files = [media(settings, v["name"]) for v in variants_of(stored)]
    assert len(files) == 6 and all(path.exists() for path in files)
    forget(stored.name)
    assert not ImageFile.objects.filter(name=stored.name).exists()
    assert not any(path.exists() for path in files)


def test_imported_images_and_covers_are_registered(tmp_path):
    import_markdown([copy_sample("hugo", tmp_path)])
    note = Note.objects.get(slug="warp-scheduling")
    names = set(ImageFile.objects.values_list("name", flat=True))
    assert note.cover.name in names
    body_image = note.body.split("![一个 SM](/media/")[1].split(")")[0]
    assert body_image in names
    # The page already knows the image's size (no variants yet: the runner has not run).
    assert f'src="/media/{body_image}"' in note.body_html
    row = ImageFile.objects.get(name=body_image)
    assert f'width="{row.width}" height="{row.height}"' in note.body_html


def test_an_exported_image_restored_at_its_own_name_is_registered(tmp_path):
    """What export writes (/media/<name>, the file in static/media/) comes back under the
    same name, and is registered with its size like a new upload."""
    name = "uploads/2024/01/Kq3.jpg"
    folder = tmp_path / "site"
    (folder / "static/media/uploads/2024/01").mkdir(parents=True)
    (folder / "static/media" / name).write_bytes(image_bytes(1300, 700))
    (folder / "content/posts").mkdir(parents=True)
    (folder / "content/posts/back.md").write_text(
        f'---\ntitle: "Back"\ndate: 2024-01-02T00:00:00Z\n---\n![图](/media/{name})\n', "utf-8"
    )
    import_markdown([folder])
    assert "/media/uploads/2024/01/Kq3.jpg" in Note.objects.get(title="Back").body
    row = ImageFile.objects.get(name=name)
    assert (row.width, row.height) == (1300, 700)


def test_a_dry_run_import_registers_nothing(tmp_path):
    import_markdown([copy_sample("hugo", tmp_path)], dry_run=True)
    assert not ImageFile.objects.exists()


def test_the_task_makes_the_variants_and_renders_the_notes_showing_the_image(settings):
    stored = upload(1200, 800)
    shows = make_note(body=f"![图]({stored.url})", slug="shows")
    other = make_note(body="没有图。", slug="other")
    before = Note.objects.get(pk=other.pk).body_html
    assert "<picture>" not in shows.body_html
    assert make_image_variants.func([stored.name]) == 1
    assert "<picture>" in Note.objects.get(pk=shows.pk).body_html
    assert Note.objects.get(pk=other.pk).body_html == before
    assert make_image_variants.func(["uploads/gone.jpg"]) == 0  # deleted since: nothing


@pytest.mark.django_db(transaction=True)
def test_the_page_shows_the_picture_once_the_runner_has_made_the_variants(staff_client):
    """The editor's upload (a 4000 × 3000 photo) queues the task after the request; the page
    cached before it ran shows the picture after it ran, and so does the preview."""
    client = Client()  # a reader (staff_client is the logged-in ``client``)
    note = make_note(body="第一段。\n", slug="photo")
    run_queued_tasks()  # what the new note queued itself (its share card): done
    data = image_bytes(4000, 3000, quality=90)
    response = staff_client.post(
        "/admin/editor/upload/", {"image": SimpleUploadedFile("DSC_0001.jpg", data, "image/jpeg")}
    )
    assert response.status_code == 200
    url = response.json()["url"]
    note.body = f"第一段。\n\n![照片]({url})\n"
    note.save(update_fields=["body"])  # the text alone: nothing but the page changes
    page = client.get(note.get_absolute_url()).content.decode()
    assert "<picture>" not in page and 'width="4000" height="3000"' in page
    cached = client.get(note.get_absolute_url())
    assert cached[page_cache.HEADER] == "hit" and cached.content.decode() == page

    queued = DBTaskResult.objects.exclude(status="SUCCESSFUL").values_list("task_path", flat=True)
    assert [path.rsplit(".", 1)[1] for path in queued] == ["make_image_variants"]
    run_queued_tasks()
    page = client.get(note.get_absolute_url()).content.decode()
    assert "<picture>" in page and "-1600.avif 1600w" in page
    preview = staff_client.post(
        reverse("admin:blog_note_editor_preview"),
        {"content": f"![照片]({url})", "language": "zh-hans"},
    ).content.decode()
    assert '<source type="image/avif"' in preview and 'width="4000"' in preview


@pytest.mark.django_db(transaction=True)
def test_a_cover_uploaded_in_the_admin_becomes_a_picture(staff_client, settings):
    client = Client()  # a reader
    data = image_bytes(1800, 1200)
    form = note_form_data(
        title="封面", slug="with-cover", status="published",
        cover=SimpleUploadedFile("cover.jpg", data, "image/jpeg"),
    )  # fmt: skip
    response = staff_client.post(reverse("admin:blog_note_add"), form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    note = Note.objects.get(slug="with-cover")
    row = ImageFile.objects.get(name=note.cover.name)
    assert (row.width, row.height) == (1800, 1200)
    page = client.get(note.get_absolute_url()).content.decode()
    assert f'<figure class="cover"><img src="{note.cover.url}"' in page  # until the runner ran

    run_queued_tasks()
    note.refresh_from_db()
    assert note.cover_html.startswith('<figure class="cover"><picture><source type="image/avif"')
    page = client.get(note.get_absolute_url()).content.decode()
    assert note.cover_html in page
    assert 'width="1800" height="1200"' in note.cover_html and "lazy" not in note.cover_html
