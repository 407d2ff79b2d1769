"""Staff preview drafts and scheduled notes at their URL; anyone may read one through a signed
share link until it expires or the note changes. Neither is ever cached or indexed."""

from datetime import timedelta

import pytest
import time_machine
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from blog.models.share_links import check_share_token, make_share_token
from tests.factories import make_draft, make_note, make_page, make_scheduled

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


def _never_cached(response):
    cache_control = response.headers.get("Cache-Control", "")
    return (
        "no-cache" in cache_control and "private" in cache_control and "public" not in cache_control
    )


@pytest.mark.parametrize(("maker", "banner"), [(make_draft, "草稿"), (make_scheduled, "定时发布")])
def test_staff_see_unpublished_note_with_banner_and_never_cache(staff_client, maker, banner):
    maker(title="Work in progress", slug="wip", body="## 进展\n\n尚未完成的 kernel 笔记。")
    url = reverse("blog:note-detail", kwargs={"slug": "wip"})
    response = staff_client.get(url)
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    assert page.h1.get_text() == "Work in progress"
    assert page.select_one(".prose p").get_text() == "尚未完成的 kernel 笔记。"
    assert page.select_one(".banner strong").get_text() == banner
    assert page.find("meta", attrs={"name": "robots"})["content"] == "noindex"
    assert _never_cached(response)
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert {"no-store", "private", "max-age=0"} <= directives
    # Nothing the author saw was kept for anyone else: a reader still gets the 404.
    assert Client().get(url).status_code == 404


def test_staff_with_view_permission_only_may_preview(client, db):
    user = get_user_model().objects.create_user("reader", password="x", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_note"))
    client.force_login(user)
    make_draft(slug="wip")
    assert client.get(reverse("blog:note-detail", kwargs={"slug": "wip"})).status_code == 200


def test_non_staff_users_get_404(client, db):
    user = get_user_model().objects.create_user("visitor", password="x")
    client.force_login(user)
    make_draft(slug="wip")
    assert client.get(reverse("blog:note-detail", kwargs={"slug": "wip"})).status_code == 404


def test_published_note_for_staff_is_the_readers_page_kept_from_shared_caches(staff_client):
    make_note(slug="live")
    staff_client.get(reverse("admin:index"))  # the admin gives the author's marker
    response = staff_client.get(reverse("blog:note-detail", kwargs={"slug": "live"}))
    directives = response.headers["Cache-Control"]
    # The browser may keep it as it keeps the readers' page; no edge or proxy may.
    assert "private" in directives and "max-age=" in directives and "public" not in directives
    assert "banner" not in response.content.decode()


def test_unpublished_page_for_staff_only(client, staff_client, db):
    make_page(title="Colophon", slug="colophon", is_published=False)
    url = reverse("blog:page-detail", kwargs={"slug": "colophon"})
    staff_response = staff_client.get(url)
    assert staff_response.status_code == 200
    assert "未发布" in staff_response.content.decode()
    assert _never_cached(staff_response)
    staff_client.logout()
    assert client.get(url).status_code == 404


# Share links


def _share_url(note, token=None):
    return reverse(
        "blog:note-share", kwargs={"slug": note.slug, "token": token or make_share_token(note)}
    )


def test_share_link_works_without_login(client, db):
    note = make_draft(title="Shared draft", slug="shared")
    response = client.get(_share_url(note))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Shared draft" in html and "私密预览" in html and "<strong>草稿</strong>" not in html
    assert response.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert '<meta name="robots" content="noindex">' in html
    assert 'rel="canonical"' not in html
    assert _never_cached(response)
    assert "application/ld+json" not in html


def test_share_link_works_for_scheduled_notes(client, db):
    note = make_scheduled(slug="soon")
    assert client.get(_share_url(note)).status_code == 200


def test_share_link_expires(client, db, settings):
    note = make_draft(slug="shared")
    url = _share_url(note)
    with time_machine.travel(timedelta(days=7, minutes=1)):
        assert client.get(url).status_code == 404
    settings.BIJI_PREVIEW_MAX_AGE = 60
    with time_machine.travel(timedelta(minutes=2)):
        assert client.get(url).status_code == 404
    with time_machine.travel(timedelta(seconds=30)):
        assert client.get(url).status_code == 200


def test_editing_the_note_revokes_old_links(client, db):
    note = make_draft(slug="shared")
    old = _share_url(note)
    with time_machine.travel(timedelta(seconds=5)):
        note.body = "Edited."
        note.save()
        assert client.get(old).status_code == 404
        assert client.get(_share_url(note)).status_code == 200


@pytest.mark.parametrize(
    "token",
    ["nonsense", "1abc:def", ":", "a" * 500, "%E0%A4%A", "1kTzJx:" + "A" * 43],
)
def test_bad_tokens_are_404(client, db, token):
    note = make_draft(slug="shared")
    assert client.get(f"/notes/shared/share/{token}/").status_code == 404
    assert not check_share_token(note, token)


def test_token_for_one_note_does_not_open_another(client, db):
    first = make_draft(slug="first")
    make_draft(slug="second")
    token = make_share_token(first)
    assert client.get(f"/notes/second/share/{token}/").status_code == 404


def test_make_share_token_is_short_and_url_safe(db):
    token = make_share_token(make_draft(slug="shared"))
    assert len(token) < 80
    assert "/" not in token


def test_share_link_of_a_published_note_redirects_to_it(client, db):
    note = make_note(slug="live-now")
    response = client.get(_share_url(note))
    assert response.status_code == 302
    assert response["Location"] == "/notes/live-now/"
    assert "public" not in response["Cache-Control"]


def test_staff_preview_is_not_indexed(staff_client):
    make_draft(slug="wip")
    response = staff_client.get(reverse("blog:note-detail", kwargs={"slug": "wip"}))
    assert response["X-Robots-Tag"] == "noindex, nofollow"


def test_links_made_by_an_earlier_release_keep_working(client, db):
    """Share links already sent out were signed under the salt "blog.preview.note": moving or
    renaming the code that signs them must not revoke them."""
    from django.core import signing

    note = make_draft()
    fingerprint = f"note.{note.pk}.{int(note.updated_at.timestamp() * 1_000_000)}"
    signed = signing.TimestampSigner(salt="blog.preview.note").sign(fingerprint)
    token = signed[len(fingerprint) + 1 :]
    assert check_share_token(note, token)
    assert client.get(_share_url(note, token)).status_code == 200
