"""A published note's Markdown source at its address + index.md: the file the export writes for
it (the same body, the same front matter) with its page's URL, its translation's and the
licence; in its own language's interface (the other one redirects there); drafts and scheduled
notes are 404; kept like the note page, in a fixed number of queries."""

import re
from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse

from blog.models import Language, LegacyPath, SiteSettings
from blog.porting import frontmatter
from blog.porting.export import export, note_path
from blog.porting.formats import HUGO
from blog.porting.markdown_source import READER_KEYS
from tests.factories import make_draft, make_note, make_scheduled, make_series, make_tag
from tests.shared_data import module_data

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese_interface")]
pytest_plugins = ["tests.site_data"]

MARKDOWN = "text/markdown; charset=utf-8"
SITE = "http://127.0.0.1:8000"  # SITE_URL in the tests


@module_data
def sources_blog():
    """A translated pair in a series with tags, an old path and a licence; a note whose
    translation is a draft; a draft and a scheduled note."""
    SiteSettings.objects.create(
        title="笔记 biji",
        author="Ada",
        licence="CC BY-SA 4.0",
        licence_url="https://creativecommons.org/licenses/by-sa/4.0/",
    )
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    tags = [make_tag("GPU", "图形处理器"), make_tag("Scheduling", "调度")]
    zh = make_note(
        title="Warp 调度",
        slug="warp",
        body="## 调度\n\n线程束 $x^2$。\n\n```python\nprint('x')\n```\n",
        summary="关于线程束。",
        tags=tags,
        series=series,
        series_position=1,
        published_ago=timedelta(days=3),
    )
    en = make_note(
        title="Warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        body="## Scheduling\n\nWarps.\n",
        tags=tags[:1],
        translation=zh,
        series=series,
        series_position=1,
        source_author="Someone",
        source_url="https://example.com/warps",
    )
    LegacyPath.objects.create(path="/2024/01/warp/", note=zh)
    lonely = make_note(title="独自", slug="lonely", body="一个人。\n")
    make_draft(title="草稿译文", slug="secret-draft-translation", translation=lonely)
    make_draft(title="草稿", slug="a-draft")
    make_scheduled(title="将来", slug="to-come")
    return {"zh": zh, "en": en, "lonely": lonely}


@pytest.fixture
def notes(sources_blog):
    return sources_blog.copy()


def source(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"] == MARKDOWN
    return frontmatter.split(response.content.decode())


def exported(note, folder):
    """The file biji's export writes for ``note``, read as the import reads it."""
    export(folder, HUGO)
    return frontmatter.split((folder / note_path(note, HUGO)).read_text("utf-8"))


@pytest.mark.parametrize(
    ("key", "path", "page", "translation"),
    [
        ("zh", "/notes/warp/index.md", "/notes/warp/", "/en/notes/warp-en/"),
        ("en", "/en/notes/warp-en/index.md", "/en/notes/warp-en/", "/notes/warp/"),
    ],
)
def test_a_note_is_its_exported_file_with_its_address_translation_and_licence(
    client, notes, tmp_path, key, path, page, translation
):
    served = source(client, path)
    written = exported(notes[key], tmp_path)
    assert served.body == written.body and "Warp" in served.meta["title"]
    # The export's keys, in its order, with its values; then the reader's keys.
    assert {k: v for k, v in served.meta.items() if k not in READER_KEYS} == written.meta
    assert list(served.meta)[: len(written.meta)] == list(written.meta)
    assert served.meta["url"] == SITE + page
    assert served.meta["translation"] == SITE + translation
    assert served.meta["licence"] == "CC BY-SA 4.0"
    assert served.meta["licence_url"] == "https://creativecommons.org/licenses/by-sa/4.0/"
    # What the export says of the note, the source says too: tags, series, its old path.
    assert served.meta["translationKey"] == "warp" and served.meta["categories"]
    assert served.meta["tags"] and "translation_synced" in served.meta


def test_the_source_says_what_language_it_is_in_and_where_its_page_is(client, notes):
    response = client.get("/en/notes/warp-en/index.md")
    assert response["Content-Language"] == "en"
    assert response["Link"] == f'<{SITE}/en/notes/warp-en/>; rel="canonical"'
    assert client.get("/notes/warp/index.md")["Content-Language"] == "zh-Hans"
    assert "public" in response["Cache-Control"]


def test_the_source_of_the_aliases_is_the_exports(client, notes, tmp_path):
    served = source(client, "/notes/warp/index.md")
    assert (
        served.meta["aliases"]
        == ["/2024/01/warp/"]
        == exported(notes["zh"], tmp_path).meta["aliases"]
    )


def test_a_draft_translation_is_not_named(client, notes, tmp_path):
    response = client.get("/notes/lonely/index.md")
    text = response.content.decode()
    served, written = frontmatter.split(text), exported(notes["lonely"], tmp_path)
    assert "secret-draft-translation" not in text and "translation" not in served.meta
    # The export names the pair; the source leaves exactly the pair's keys out.
    left_out = {"translationKey", "translation_synced"}
    assert left_out <= written.meta.keys()
    mine = {k: v for k, v in served.meta.items() if k not in READER_KEYS}
    assert mine == {k: v for k, v in written.meta.items() if k not in left_out}
    assert served.body == written.body


@pytest.mark.parametrize(
    ("asked", "canonical"),
    [
        ("/notes/warp-en/index.md", "/en/notes/warp-en/index.md"),
        ("/en/notes/warp/index.md", "/notes/warp/index.md"),
    ],
)
def test_the_other_interface_redirects_to_the_notes_own(client, notes, asked, canonical):
    response = client.get(asked)
    assert response.status_code == 301 and response["Location"] == canonical


@pytest.mark.parametrize("slug", ["a-draft", "to-come", "secret-draft-translation", "nothing"])
@pytest.mark.parametrize("prefix", ["", "/en"])
def test_drafts_scheduled_notes_and_made_up_slugs_are_not_found(client, notes, slug, prefix):
    assert client.get(f"{prefix}/notes/{slug}/index.md").status_code == 404


def test_a_staff_member_sees_no_draft_source_either(admin_client, notes):
    assert admin_client.get("/notes/a-draft/index.md").status_code == 404


def test_without_a_licence_all_rights_are_reserved(client, notes):
    SiteSettings.objects.filter(pk=1).update(licence="", licence_url="https://example.com/x")
    SiteSettings.objects.get(pk=1).save()  # as the admin saves it: the settings' copy follows
    served = source(client, "/notes/warp/index.md")
    assert served.meta["licence"] == "All rights reserved" and "licence_url" not in served.meta


def test_an_edit_shows_at_once_through_the_page_cache(
    client, notes, django_capture_on_commit_callbacks
):
    note = notes["zh"]
    with django_capture_on_commit_callbacks(execute=True):
        note.save()  # what building the module's data left to move (the site's part) moves now
    assert "线程束" in client.get("/notes/warp/index.md").content.decode()
    assert client.get("/notes/warp/index.md")["X-Page-Cache"] == "hit"
    note.body = "## 调度\n\n改写过。\n"
    with django_capture_on_commit_callbacks(execute=True):  # the content version moves
        note.save()
    assert "改写过" in client.get("/notes/warp/index.md").content.decode()
    # Its translation unpublished: the source stops naming it.
    english = notes["en"]
    english.status = "draft"
    with django_capture_on_commit_callbacks(execute=True):
        english.save()
    assert "translation:" not in client.get("/notes/warp/index.md").content.decode()


def test_a_fixed_number_of_queries_whatever_the_note_holds(
    client, notes, django_assert_num_queries
):
    """The content state, the note with its series and both sides of its pair, its tags, its old
    paths and its corrections, then the versions of the parts it showed; kept, the state
    alone."""
    many = make_note(slug="many-tags", tags=[make_tag(f"T{i}", f"标签{i}") for i in range(8)])
    LegacyPath.objects.create(path="/old/many/", note=many)
    LegacyPath.objects.create(path="/old/many-2/", note=many)
    client.get("/")  # the site settings' copy, as on a running site
    for path in ("/notes/warp/index.md", "/notes/many-tags/index.md", "/notes/lonely/index.md"):
        with django_assert_num_queries(6):
            assert client.get(path).status_code == 200
        with django_assert_num_queries(1):
            assert client.get(path)["X-Page-Cache"] == "hit"


def test_the_note_page_links_its_source_in_the_notes_own_interface(client, notes):
    link = re.compile(r'<link rel="alternate" type="text/markdown" href="([^"]+)">')
    assert link.findall(client.get("/notes/warp/").content.decode()) == ["/notes/warp/index.md"]
    # The English interface's page of a Chinese note links the note's own source.
    assert link.findall(client.get("/en/notes/lonely/").content.decode()) == [
        "/notes/lonely/index.md"
    ]
    with override_settings(BIJI_LLMS_TXT=False):
        assert not link.findall(client.get("/notes/lonely/").content.decode())
        assert client.get("/notes/warp/index.md").status_code == 404


def test_a_previewed_draft_links_no_source(admin_client, notes):
    html = admin_client.get(reverse("blog:note-detail", kwargs={"slug": "a-draft"})).content
    assert b"text/markdown" not in html
