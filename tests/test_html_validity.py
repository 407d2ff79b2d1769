"""Every page type, in both languages, is valid HTML by the Nu HTML Checker (vnu)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from blog.models import Note, Series, Tag

VNU = Path(settings.BASE_DIR) / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def page_urls():
    note = Note.objects.published().filter(series__isnull=False, translation__isnull=False).first()
    month = note.published_at
    paths = [
        "/",
        "/?page=2",
        note.get_absolute_url(),
        "/notes/decode-gemv-worklog/",  # a translated article with its source
        "/tags/",
        Tag.objects.filter(tagged_notes__isnull=False).first().get_absolute_url(),
        "/series/",
        Series.objects.first().get_absolute_url(),
        "/archive/",
        f"/archive/{month.year}/",
        f"/archive/{month.year}/{month.month}/",
        "/pages/about/",
        "/search/",
        "/search/?q=%E8%B0%83%E5%BA%A6",
        "/no-such-page/",
    ]
    return paths + ["/en" + path for path in paths]


@pytest.mark.django_db
@pytest.mark.slow
def test_every_page_type_is_valid_html(client, tmp_path):
    java = shutil.which("java")
    if java is None or not VNU.exists():
        pytest.fail("the Nu HTML Checker needs java and vnu-jar: run `make browser-deps`")
    call_command("load_demo", verbosity=0)
    files = {}
    for number, url in enumerate(page_urls()):
        response = client.get(url)
        assert response.status_code in (200, 404), url
        path = tmp_path / f"page-{number}.html"
        path.write_bytes(response.content)
        files[str(path)] = url
    result = subprocess.run(
        [java, "-jar", str(VNU), "--errors-only", "--format", "json", *files],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    messages = json.loads(result.stderr or '{"messages": []}')["messages"]
    errors = [
        f"{files.get(m.get('url', '').removeprefix('file:'), m.get('url'))}: "
        f"line {m.get('lastLine')}: {m['message']}"
        for m in messages
        if m.get("type") == "error"
    ]
    assert not errors, "\n".join(errors)
