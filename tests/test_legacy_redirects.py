"""Old URLs keep working: a 404 at a path an import recorded redirects to the note or page."""

import pytest

from blog.models import LegacyPath
from tests.factories import make_draft, make_note, make_page

pytestmark = pytest.mark.django_db

MIDDLEWARE = "blog.public.legacy_redirects.LegacyRedirectMiddleware"


@pytest.fixture(autouse=True)
def redirects(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, MIDDLEWARE]


def test_old_permalink_redirects_permanently_to_the_note(client):
    note = make_note(slug="flashattention-tiling")
    LegacyPath.objects.create(path="/2025/08/17/flashattention/", note=note)
    response = client.get("/2025/08/17/flashattention/")
    assert response.status_code == 301
    assert response["Location"] == "/notes/flashattention-tiling/"
    assert client.get("/2025/08/17/flashattention").status_code == 301  # slash or not


def test_old_page_path_redirects_to_the_page(client):
    page = make_page(title="About", slug="about")
    LegacyPath.objects.create(path="/about-me.html", page=page)
    assert client.get("/about-me.html")["Location"] == "/pages/about/"


def test_drafts_unknown_paths_and_live_pages_are_left_alone(client):
    LegacyPath.objects.create(path="/old/draft/", note=make_draft(slug="secret"))
    assert client.get("/old/draft/").status_code == 404  # never reveals a draft's slug
    assert client.get("/no/such/path/").status_code == 404
    note = make_note(slug="live")
    LegacyPath.objects.create(path=note.get_absolute_url().rstrip("/"), note=note)
    assert client.get(note.get_absolute_url()).status_code == 200


def test_an_old_path_never_takes_over_a_notes_own_address(client):
    """A draft's address answers 404 to readers; an old path recorded there (by an older
    import, or before the draft was created) must not turn it into a 301 that browsers keep
    after the draft is published."""
    make_draft(slug="secret")
    elsewhere = make_note(slug="elsewhere")
    for path in ("/notes/secret/", "/en/notes/secret/", "/notes/secret"):
        LegacyPath.objects.create(path=path, note=elsewhere)
    for path in ("/notes/secret/", "/en/notes/secret/"):
        assert client.get(path).status_code == 404, path
    # Without the slash, only Django's own APPEND_SLASH redirect, to the note's address.
    assert client.get("/notes/secret").get("Location") in (None, "/notes/secret/")
    make_page(title="Draft page", slug="later", is_published=False)
    LegacyPath.objects.create(path="/pages/later/", note=elsewhere)
    assert client.get("/pages/later/").status_code == 404


def test_an_import_keeps_no_old_path_at_a_notes_address(tmp_path):
    from blog.porting.run import import_markdown

    make_draft(slug="secret")
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "post.md").write_text(
        "---\ntitle: Post\naliases: [/notes/secret/, /old/post/]\n---\n\nBody.\n", "utf-8"
    )
    report = import_markdown([folder])
    assert (
        "post.md: warning: old path /notes/secret/ is the address of the note secret: not kept "
        "as a redirect" in report.lines()
    )
    assert list(LegacyPath.objects.values_list("path", flat=True)) == ["/old/post/"]


def test_a_redirect_is_kept_for_a_day_not_for_ever(client):
    """A 301 without Cache-Control is kept by browsers indefinitely: a path pointed elsewhere
    (or a note unpublished) would never reach readers who followed it once."""
    note = make_note(slug="kept")
    LegacyPath.objects.create(path="/2025/kept/", note=note)
    response = client.get("/2025/kept/")
    assert response.status_code == 301
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert directives == {"public", "max-age=86400"}
