"""Lossless round trip: export → import into an empty database → export gives the same bytes.

The demo blog is the fixture (series, bilingual tags, translations, drafts, a scheduled note,
a translated article with its source, pages, settings, navigation), with an old URL, a cover
and an image in a body added. Runs on SQLite and PostgreSQL alike (``make test`` runs both).
"""

import io
import shutil
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from PIL import Image

from blog.images.uploads import store_image
from blog.models import (
    ImportedMedia,
    LegacyPath,
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Tag,
    Term,
)  # fmt: skip
from blog.ops.demo.loader import load_demo
from blog.porting.export import export
from blog.porting.formats import FORMATS
from blog.porting.run import import_markdown

pytestmark = pytest.mark.django_db


def png(colour):
    buffer = io.BytesIO()
    Image.new("RGB", (12, 8), colour).save(buffer, "PNG")
    return ContentFile(buffer.getvalue(), name="x.png")


def jpeg():
    buffer = io.BytesIO()
    Image.new("RGB", (20, 10), (200, 30, 60)).save(buffer, "JPEG", quality=80)
    return ContentFile(buffer.getvalue(), name="photo.jpg")


@pytest.fixture
def blog():
    load_demo()
    note = Note.objects.get(slug="flashattention-tiling")
    image = store_image(png((10, 200, 30)))
    note.body += f"\n![分块示意]({image.url})\n"
    note.cover = store_image(jpeg()).name
    note.cover_alt = "分块"
    note.save()
    LegacyPath.objects.create(path="/2025/08/17/flashattention/", note=note)
    note.tags.add(*Tag.objects.resolve(["只有中文的标签"]))
    about = Page.objects.get(slug="about")
    LegacyPath.objects.create(path="/about-me/", page=about)


def empty_database(media_root):
    """Remove everything this test wrote (and nothing else), files included."""
    models = (
        LegacyPath,
        ImportedMedia,
        Note,
        Page,
        Series,
        Tag,
        Term,
        NavigationLink,
        SiteSettings,
    )
    for model in models:
        model.objects.all().delete()
    shutil.rmtree(media_root, ignore_errors=True)


def files(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(Path(folder).rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("fmt", ["hugo", "hexo", "jekyll"])
@pytest.mark.slow
def test_export_import_export_is_byte_identical(blog, fmt, tmp_path, settings):
    first, second = tmp_path / "first", tmp_path / "second"
    export(first, FORMATS[fmt])
    empty_database(settings.MEDIA_ROOT)
    report = import_markdown([first])
    assert not report.errors, report.lines()
    assert report.counts["created"] == 15 + 22  # 13 notes, 2 pages, 22 glossary terms
    export(second, FORMATS[fmt])
    before, after = files(first), files(second)
    assert sorted(before) == sorted(after)
    for name in before:
        assert before[name] == after[name], name
    assert len([n for n in before if "/media/" in f"/{n}"]) == 2  # the image and the cover


@pytest.mark.slow
def test_round_trip_through_the_commands(blog, tmp_path, settings):
    first, second = tmp_path / "first", tmp_path / "second"
    call_command("export_markdown", str(first), stdout=io.StringIO())
    empty_database(settings.MEDIA_ROOT)
    call_command("import_markdown", str(first), stdout=io.StringIO(), stderr=io.StringIO())
    call_command("export_markdown", str(second), stdout=io.StringIO())
    assert files(first) == files(second)


def test_importing_the_export_into_the_same_database_changes_nothing(blog, tmp_path):
    export(tmp_path / "out")
    report = import_markdown([tmp_path / "out"])
    assert report.counts["created"] == report.counts["updated"] - 1 == 0  # the data file
    assert report.counts["unchanged"] == 15 + Term.objects.count()
