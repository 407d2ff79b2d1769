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

import io

import pytest
from django.core.management import call_command
from django.test import override_settings

from benchmarks.photos import make_photo_note, original_bytes, stored_names
from blog.models import ImageFile


@pytest.fixture(scope="module")
def photo_note(demo, tmp_path_factory):
    """The photo note, published, its variants made as the background runner makes them
    (``manage.py imagevariants``). ``photo_note.media_root`` is its media folder,
    ``photo_note.original_bytes`` what its stored originals weigh together."""
    media = tmp_path_factory.mktemp("photo-media")
    with override_settings(MEDIA_ROOT=media):
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
