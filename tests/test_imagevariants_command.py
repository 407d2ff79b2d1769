"""``manage.py imagevariants``: images stored before variants existed (or restored from a
backup) are registered and get their variants, the notes showing them are rendered again, and
the command says what it did; run again, it finds nothing to do."""

import io
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from PIL import Image

from blog.models import ImageFile, ImportedMedia, Note
from tests.factories import make_note, make_page

pytestmark = pytest.mark.django_db


def jpeg(width, height):
    out = io.BytesIO()
    Image.new("RGB", (width, height), (120, 60, 30)).save(out, "JPEG")
    return out.getvalue()


def stored(name, data):
    """A file in the media storage that biji does not know of (as before variants existed)."""
    return default_storage.save(name, ContentFile(data))


def run(*args):
    out = StringIO()
    call_command("imagevariants", *args, stdout=out)
    return out.getvalue()


def test_old_images_are_registered_given_variants_and_their_notes_rendered(settings):
    upload = stored("uploads/2024/05/old.jpg", jpeg(1000, 500))
    cover = stored("covers/2024/cover.jpg", jpeg(2000, 1000))
    imported = stored("images/2019/legacy.jpg", jpeg(400, 300))  # restored at its own name
    ImportedMedia.objects.create(sha256="0" * 64, name=imported)
    shown = stored("blog-files/shown.jpg", jpeg(600, 400))  # only a body names it
    stored("uploads/2024/05/notes.txt", b"not an image")
    stored("uploads/2024/05/broken.png", b"\x89PNG\r\n\x1a\n broken")
    note = make_note(body=f"![旧图](/media/{upload})\n\n![](/media/{shown})", slug="old",
                     cover=cover)  # fmt: skip
    page = make_page(title="Legacy", slug="legacy", body=f"![](/media/{imported})")
    untouched = make_note(body="没有图片。", slug="plain")
    ImageFile.objects.all().delete()  # as before the feature: nothing registered
    for obj in (note, page, untouched):
        obj.render()
    plain_html = Note.objects.get(pk=untouched.pk).body_html
    assert "<picture>" not in Note.objects.get(pk=note.pk).body_html

    output = run()
    assert output.splitlines()[0] == (
        "Images registered: 4; variants made: 16; already complete: 0; unreadable, skipped: 1; "
        "notes and pages rendered again: 2."
    )
    assert "  unreadable or missing: uploads/2024/05/broken.png" in output
    assert set(ImageFile.objects.values_list("name", "width", "height")) == {
        (upload, 1000, 500),
        (cover, 2000, 1000),
        (imported, 400, 300),
        (shown, 600, 400),
    }
    note.refresh_from_db()
    assert note.body_html.count("<picture>") == 2
    assert note.cover_html.startswith('<figure class="cover"><picture>')
    assert f"{cover}-1600.avif 1600w" in note.cover_html
    assert 'width="400" height="300"' in page.__class__.objects.get(pk=page.pk).body_html
    assert Note.objects.get(pk=untouched.pk).body_html == plain_html
    assert (Path(settings.MEDIA_ROOT) / f"variants/{upload}-960.webp").exists()

    again = run()
    assert again.splitlines()[0] == (
        "Images registered: 0; variants made: 0; already complete: 4; unreadable, skipped: 1; "
        "notes and pages rendered again: 0."
    )
    assert again.splitlines()[-1] == "Nothing was needed."


def test_a_lost_variant_is_made_again_and_its_notes_follow(settings):
    name = stored("uploads/2025/01/figure.jpg", jpeg(1200, 800))
    run()
    note = make_note(body=f"![图](/media/{name})", slug="figure")
    lost = Path(settings.MEDIA_ROOT) / f"variants/{name}-960.avif"
    lost.unlink()
    note.render()  # a render meanwhile leaves the lost file out
    assert lost.name not in Note.objects.get(pk=note.pk).body_html

    output = run()
    assert output.startswith(
        "Images registered: 0; variants made: 1; already complete: 0; unreadable, skipped: 0; "
        "notes and pages rendered again: 1."
    )
    assert lost.exists()
    assert f"{lost.name} 960w" in Note.objects.get(pk=note.pk).body_html


def test_a_dry_run_says_what_it_would_do_and_writes_nothing(settings):
    name = stored("uploads/2025/02/new.jpg", jpeg(1000, 800))
    make_note(body=f"![图](/media/{name})", slug="dry")
    ImageFile.objects.all().delete()
    output = run("--dry-run")
    assert output.splitlines()[0] == (
        "Images registered: 1; variants would be made: 6; already complete: 0; "
        "unreadable, skipped: 0; notes and pages would be rendered again: 1."
    )
    assert not ImageFile.objects.exists()
    assert not (Path(settings.MEDIA_ROOT) / "variants").exists()
