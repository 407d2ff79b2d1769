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

import contextlib
import hashlib
import io
import os
from pathlib import Path

import PIL
import pytest
from django.core.management import call_command
from django.test import override_settings

from benchmarks import photos
from benchmarks.photos import make_photo_note, original_bytes, stored_names
from blog.models import ImageFile


@contextlib.contextmanager
def photos_kept(config):
    """The five JPEGs, made once and kept in pytest's cache folder (.pytest_cache/): making
    them is ~2 s of Pillow each, paid again by every session that shows the note (the browser
    tests, then Lighthouse). They are the same bytes for the same seed; the key holds the
    source of benchmarks/photos.py and Pillow's version, so a change to either makes them
    again. Without pytest's cache (``-p no:cacheprovider``) they are made each time."""
    cache = getattr(config, "cache", None)
    if cache is None:
        yield
        return
    folder = cache.mkdir("biji-photos")
    key = hashlib.sha256(Path(photos.__file__).read_bytes() + PIL.__version__.encode())
    made = photos.jpeg

    def jpeg(seed, quality=90):
        path = folder / f"{key.hexdigest()[:16]}-{seed}-{quality}.jpg"
        if path.is_file():
            return path.read_bytes()
        data = made(seed, quality)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_bytes(data)
        partial.replace(path)  # whole or not at all, should two sessions make it at once
        return data

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(photos, "jpeg", jpeg)
        yield


@pytest.fixture(scope="module")
def photo_note(demo, tmp_path_factory, request):
    """The photo note, published, its variants made as the background runner makes them
    (``manage.py imagevariants``). ``photo_note.media_root`` is its media folder,
    ``photo_note.original_bytes`` what its stored originals weigh together."""
    media = tmp_path_factory.mktemp("photo-media")
    with override_settings(MEDIA_ROOT=media):
        with photos_kept(request.config):
            note = make_photo_note()
        try:
            call_command("imagevariants", stdout=io.StringIO())
            note.refresh_from_db()
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
