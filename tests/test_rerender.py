"""`manage.py rerender` stores what the current renderer produces."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from blog.models import Note, Page, Series, SiteSettings
from blog.models.share_links import make_share_token
from tests.factories import make_draft, make_note, make_page, make_series

pytestmark = pytest.mark.django_db


def test_stale_html_is_rendered_again():
    note = make_note(body="## 调度\n\n$x^2$")
    Note.objects.filter(pk=note.pk).update(body_html="<p>stale</p>", word_count=0)
    out = StringIO()
    call_command("rerender", stdout=out)
    note.refresh_from_db()
    assert "stale" not in note.body_html
    assert "<math" in note.body_html and note.word_count > 0
    assert "Note: 1" in out.getvalue()


def test_rerender_moves_no_date_and_keeps_share_links(client):
    """A renderer upgrade is not an edit: no "Updated" date, no feed or sitemap date moves,
    and a share link handed out before still opens the draft."""
    published = make_note(body="## 旧\n\ntext")
    draft = make_draft(body="draft body")
    link = reverse("blog:note-share", kwargs={"slug": draft.slug, "token": make_share_token(draft)})
    before = dict(Note.objects.values_list("pk", "updated_at"))
    Note.objects.update(body_html="<p>stale</p>")

    call_command("rerender", stdout=StringIO())

    assert dict(Note.objects.values_list("pk", "updated_at")) == before
    published.refresh_from_db()
    assert "stale" not in published.body_html
    assert client.get(link).status_code == 200


def test_rerender_covers_series_pages_and_site_settings():
    series = make_series(description="**粗体**")
    page = make_page(body="*斜体*")
    site = SiteSettings.objects.create(footer="[link](/about/)")
    updated = {obj: type(obj).objects.get(pk=obj.pk).updated_at for obj in (series, page)}
    Series.objects.update(description_html="stale")
    Page.objects.update(body_html="stale")
    SiteSettings.objects.update(footer_html="stale")

    call_command("rerender", stdout=StringIO())

    series.refresh_from_db(), page.refresh_from_db(), site.refresh_from_db()
    assert series.description_html == "<p><strong>粗体</strong></p>"
    assert page.body_html == "<p><em>斜体</em></p>"
    assert 'href="/about/"' in site.footer_html
    assert {obj: obj.updated_at for obj in (series, page)} == updated
