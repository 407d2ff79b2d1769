"""The media library: uploads with thumbnails, where each is used, size; unused ones deleted."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from tests.factories import make_note

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(client):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    return client


def upload(client, name="photo.png"):
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    response = client.post(
        "/admin/editor/upload/", {"image": SimpleUploadedFile(name, buffer.getvalue())}
    )
    assert response.status_code == 200, response.content
    return response.json()["url"]


def test_lists_uploads_with_where_they_are_used(author):
    used, unused = upload(author), upload(author)
    note = make_note(title="有图的笔记", body=f"文字\n\n![图]({used})\n")
    response = author.get(reverse("admin:blog_note_media"))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'src="{used}"' in html and f'src="{unused}"' in html  # thumbnails
    assert reverse("admin:blog_note_change", args=[note.pk]) in html
    rows = {u.url: u for u in response.context["uploads"]}
    assert rows[used].used_by and not rows[unused].used_by
    assert rows[unused].size > 0
    only = author.get(reverse("admin:blog_note_media"), {"unused": "1"}).context["uploads"]
    assert [u.url for u in only] == [unused]


def test_deletes_only_unused_uploads(author):
    used, unused = upload(author), upload(author)
    make_note(body=f"![图]({used})")
    rows = {u.url: u.name for u in author.get(reverse("admin:blog_note_media")).context["uploads"]}
    response = author.post(
        reverse("admin:blog_note_media"),
        {"delete": [rows[used], rows[unused], "../settings.py", "covers/x.png"]},
    )
    assert response.status_code == 302
    assert default_storage.exists(rows[used])
    assert not default_storage.exists(rows[unused])


def test_the_media_library_is_for_staff_only(client):
    response = client.get(reverse("admin:blog_note_media"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
