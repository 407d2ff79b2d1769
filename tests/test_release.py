"""A deploy never serves what the previous release cached: the release is part of every key."""

import shutil
from pathlib import Path

import pytest

from blog.caching import release
from blog.caching import version as content_version

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def checkout(tmp_path):
    """A copy of the files the fingerprint reads, and a static manifest."""
    for folder in release.SOURCES:
        shutil.copytree(
            ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    manifest = tmp_path / "static" / release.MANIFEST
    manifest.parent.mkdir()
    manifest.write_text('{"paths": {"css/site.css": "css/site.1111.css"}}')
    return tmp_path, manifest


def test_a_template_code_translation_or_static_change_is_a_new_release(checkout):
    base, manifest = checkout
    seen = {release.digest_of(base, manifest)}
    assert release.digest_of(base, manifest) in seen  # stable while nothing changes
    changes = [
        lambda: (base / "templates" / "base.html").write_text("<!doctype html>changed"),
        lambda: (base / "blog" / "public" / "views" / "notes.py").write_text(
            "# changed\n", "utf-8"
        ),
        lambda: manifest.write_text('{"paths": {"css/site.css": "css/site.2222.css"}}'),
        lambda: (base / "blog" / "locale" / "en" / "LC_MESSAGES" / "django.mo").write_bytes(b"x"),
    ]
    for change in changes:
        change()
        digest = release.digest_of(base, manifest)
        assert digest not in seen
        seen.add(digest)


def test_the_release_is_part_of_every_key_and_etag(db, settings):
    release.fingerprint.cache_clear()
    try:
        settings.BIJI_RELEASE = "r1"
        state = content_version.current()
        before = state.key
        release.fingerprint.cache_clear()
        settings.BIJI_RELEASE = "r2"
        after = content_version.current()
        assert after.version == state.version and after.changed_at == state.changed_at
        assert after.key != before and before.startswith("r1-") and after.key.startswith("r2-")
    finally:
        release.fingerprint.cache_clear()


def test_without_a_configured_release_the_files_name_it(settings):
    release.fingerprint.cache_clear()
    try:
        settings.BIJI_RELEASE = ""
        assert release.fingerprint() == release.digest_of(
            Path(settings.BASE_DIR), Path(settings.STATIC_ROOT) / release.MANIFEST
        )
    finally:
        release.fingerprint.cache_clear()
