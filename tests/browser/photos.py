"""The note with five 4000 × 3000 photos (benchmarks/photos.py), added to the demo blog for one
test module, with its variants made.

Browser tests only read the demo blog; this module is the exception that adds a note and
removes it again, with its images, when the module ends, so the modules that follow see the
demo as it was. Its images live in a media folder of the module's own: the live server serves
``/media/`` from ``MEDIA_ROOT`` as each request comes (Django's ``_MediaFilesHandler``), so
every test that shows the note points ``MEDIA_ROOT`` there again (:func:`photo_media`), after
conftest's per-test folder.

A test module loads the fixtures with ``pytest_plugins = ["tests.browser.photos"]``.
"""

import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import PIL
import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from benchmarks import photos
from benchmarks.photos import make_photo_note, original_bytes, publish_photo_note, stored_names
from blog.models import ImageFile

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "blog" / "images"
SETTINGS = ROOT / "config" / "settings.py"


def _kept_folder(config):
    """The folder of pytest's cache (.pytest_cache/) that keeps the made note for this code,
    or None without pytest's cache (``-p no:cacheprovider``): then it is made each time.

    Making it is ~2 s of Pillow a photo and as much again for its AVIF and WebP variants, paid
    by every session that shows the note (the browser tests, then Lighthouse). The photos are
    the same bytes for the same seed and the variants the same for the same code, so the key
    holds the source of benchmarks/photos.py, of blog/images/ and of the settings, and
    Pillow's version: a change to any of them makes the note again."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    sources = [Path(photos.__file__), *sorted(IMAGES.glob("*.py")), SETTINGS]
    key = hashlib.sha256(b"".join(path.read_bytes() for path in sources))
    key.update(PIL.__version__.encode())
    return cache.mkdir("biji-photo-note") / key.hexdigest()[:16]


def _keep(note, media, folder):
    """Copy what the note's making left (media files, image rows, the body) into ``folder``,
    whole or not at all, should two sessions keep it at once."""
    partial = folder.with_name(f"{folder.name}.{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(media, partial / "media")
    rows = ImageFile.objects.filter(name__in=stored_names(note))
    kept = {
        "body": note.body,
        "images": list(rows.values("name", "width", "height", "variants")),
    }
    (partial / "note.json").write_text(json.dumps(kept), "utf-8")
    try:
        partial.replace(folder)
    except OSError:  # kept by another session meanwhile
        shutil.rmtree(partial, ignore_errors=True)


def _made_from(folder, media):
    """The note as :func:`_keep` kept it: its media copied back, its image rows and the note
    written as the upload and the background runner write them."""
    kept = json.loads((folder / "note.json").read_text("utf-8"))
    shutil.copytree(folder / "media", media, dirs_exist_ok=True)
    now = timezone.now()
    ImageFile.objects.bulk_create(
        ImageFile(variants_made_at=now, **image) for image in kept["images"]
    )
    return publish_photo_note(kept["body"])


def _made(config, media):
    folder = _kept_folder(config)
    if folder is not None and (folder / "note.json").is_file():
        return _made_from(folder, media)
    note = make_photo_note()
    call_command("imagevariants", stdout=io.StringIO())
    note.refresh_from_db()
    if folder is not None:
        _keep(note, media, folder)
    return note


@pytest.fixture(scope="module")
def photo_note(demo, tmp_path_factory, request):
    """The photo note, published, its variants made as the background runner makes them
    (``manage.py imagevariants``). ``photo_note.media_root`` is its media folder,
    ``photo_note.original_bytes`` what its stored originals weigh together."""
    media = tmp_path_factory.mktemp("photo-media")
    with override_settings(MEDIA_ROOT=media):
        note = _made(request.config, media)
        try:
            note.media_root = media
            note.original_bytes = original_bytes(note)
            yield note
        finally:
            ImageFile.objects.filter(name__in=stored_names(note)).delete()
            note.delete()


@pytest.fixture
def photo_media(photo_note, _isolated, settings):
    """The photo note's media folder for this test (conftest gives each test an empty one)."""
    settings.MEDIA_ROOT = photo_note.media_root
    return photo_note
