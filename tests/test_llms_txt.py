"""llms.txt and llms-full.txt in each interface: the notes its lists show (a translated pair once,
in the reader's language), a section per series, each entry linking a Markdown source that
answers; the full text bounded; robots.txt as the settings say; all of it gone when switched
off."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from blog.models import Language, Note, SiteSettings
from blog.porting import llms_txt
from tests.conftest import clear_test_cache
from tests.factories import make_draft, make_note, make_scheduled, make_series
from tests.shared_data import module_data

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese_interface")]
pytest_plugins = ["tests.site_data"]

SITE = "http://127.0.0.1:8000"  # SITE_URL in the tests
LINK = re.compile(r"^- \[(?P<title>(?:\\.|[^\]\\])+)\]\((?P<url>[^)]+)\)", re.MULTILINE)


@module_data
def llms_blog():
    """A translated pair, a note in each language alone, a two-part series, a draft and a
    scheduled note."""
    SiteSettings.objects.create(
        title="笔记 biji", tagline_zh="我学到的", tagline_en="What I learn", description=""
    )
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    zh = make_note(
        title="线程束 [调度]", slug="warp", body="线程束。\n", published_ago=timedelta(days=5)
    )
    make_note(
        title="Warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        body="Warps.\n",
        translation=zh,
        published_ago=timedelta(days=5),
    )
    make_note(title="只有中文", slug="zh-only", body="中文。\n", published_ago=timedelta(days=4))
    make_note(
        title="English only",
        slug="en-only",
        language=Language.ENGLISH,
        body="English.\n",
        published_ago=timedelta(days=3),
    )
    # Part 2 is the newer: the section still reads 1, 2.
    for position, days in ((2, 1), (1, 2)):
        make_note(
            title=f"第 {position} 部分",
            slug=f"part-{position}",
            body=f"第 {position} 部分。\n",
            series=series,
            series_position=position,
            published_ago=timedelta(days=days),
        )
    make_draft(title="草稿", slug="a-draft")
    make_scheduled(title="将来", slug="to-come")


@pytest.fixture
def notes(llms_blog):
    return llms_blog.copy()


def text_of(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    return response.content.decode()


def linked(text):
    return [match["url"] for match in LINK.finditer(text)]


def test_the_chinese_list_holds_the_chinese_side_of_a_pair_and_every_note_alone(client, notes):
    text = text_of(client, "/llms.txt")
    assert text.startswith("# 笔记 biji\n\n> 我学到的\n")
    assert linked(text)[:-2] == [  # then llms-full.txt and the archive (## Optional)
        f"{SITE}/notes/part-1/index.md",
        f"{SITE}/notes/part-2/index.md",
        f"{SITE}/en/notes/en-only/index.md",
        f"{SITE}/notes/zh-only/index.md",
        f"{SITE}/notes/warp/index.md",
    ]
    assert "## GPU 笔记\n" in text and "## 其他笔记\n" in text
    assert r"- [线程束 \[调度\]]" in text  # brackets in a title do not end its link


def test_the_english_list_holds_the_english_side(client, notes):
    text = text_of(client, "/en/llms.txt")
    assert text.startswith("# 笔记 biji\n\n> What I learn\n")
    urls = linked(text)
    assert f"{SITE}/en/notes/warp-en/index.md" in urls
    assert f"{SITE}/notes/warp/index.md" not in urls
    assert f"{SITE}/notes/zh-only/index.md" in urls  # alone: in its own language
    assert "## GPU notes\n" in text and "## Other notes\n" in text
    assert urls[-2:] == [f"{SITE}/en/llms-full.txt", f"{SITE}/en/archive/"]
    assert "a-draft" not in text and "to-come" not in text


def test_without_the_other_language_the_list_leaves_it_out(client, notes):
    SiteSettings.objects.filter(pk=1).update(show_other_languages=False)
    SiteSettings.objects.get(pk=1).save()
    urls = linked(text_of(client, "/llms.txt"))
    assert f"{SITE}/en/notes/en-only/index.md" not in urls
    assert f"{SITE}/notes/zh-only/index.md" in urls


@pytest.mark.parametrize("path", ["/llms.txt", "/en/llms.txt"])
def test_every_source_linked_answers(client, notes, path):
    for url in linked(text_of(client, path))[:-2]:
        response = client.get(url.removeprefix(SITE))
        assert response.status_code == 200, url
        assert response["Content-Type"] == "text/markdown; charset=utf-8"


@pytest.mark.parametrize(("prefix", "count"), [("", 5), ("/en", 5)])
def test_the_full_text_holds_each_listed_notes_source_newest_first(client, notes, prefix, count):
    full = text_of(client, f"{prefix}/llms-full.txt")
    sources = [
        client.get(url.removeprefix(SITE)).content.decode()
        for url in linked(text_of(client, f"{prefix}/llms.txt"))[:-2]
    ]
    assert len(sources) == count
    assert all(source in full for source in sources)
    newest_first = sorted(sources, key=full.index)
    assert "第 2 部分" in newest_first[0] and "线程束" not in full.partition(newest_first[-1])[0]


def slugs_in(full):
    return re.findall(r"^slug: (.+)$", full, re.MULTILINE)


def test_the_full_text_is_bounded_by_notes_and_by_bytes(client, notes, settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 0  # each bound asked afresh
    settings.BIJI_LLMS_FULL_MAX_NOTES = 2
    full = text_of(client, "/llms-full.txt")
    assert slugs_in(full) == ["part-2", "part-1"]
    assert f"{SITE}/llms.txt" in full  # says the list holds more
    settings.BIJI_LLMS_FULL_MAX_NOTES = 100
    newest = [client.get(f"/notes/part-{n}/index.md").content for n in (2, 1)]
    settings.BIJI_LLMS_FULL_MAX_BYTES = len(newest[0]) + len(newest[1])
    assert slugs_in(text_of(client, "/llms-full.txt")) == ["part-2", "part-1"]
    settings.BIJI_LLMS_FULL_MAX_BYTES -= 1
    assert slugs_in(text_of(client, "/llms-full.txt")) == ["part-2"]
    settings.BIJI_LLMS_FULL_MAX_BYTES = 10**6
    full = text_of(client, "/llms-full.txt")
    assert len(slugs_in(full)) == 5 and f"{SITE}/llms.txt" not in full


def test_the_list_is_bounded(client, notes, monkeypatch):
    monkeypatch.setattr(llms_txt, "LIST_LIMIT", 3)
    with CaptureQueriesContext(connection) as queries:
        text = text_of(client, "/llms.txt")
    assert len(linked(text)) == 3 + 2 and "最新的 3 篇笔记；归档列出全部笔记。" in text
    # The database is asked for one note more than is shown, never for every note.
    (read,) = [q["sql"] for q in queries.captured_queries if 'FROM "blog_note"' in q["sql"]]
    assert read.rstrip().endswith("LIMIT 4")


def test_an_edit_shows_at_once_through_the_page_cache(
    client, notes, django_capture_on_commit_callbacks
):
    note = Note.objects.get(slug="zh-only")
    with django_capture_on_commit_callbacks(execute=True):
        note.save()  # what building the module's data left to move (the site's part) moves now
    for path in ("/llms.txt", "/llms-full.txt"):
        client.get(path)
        assert client.get(path)["X-Page-Cache"] == "hit"
    note.title, note.body = "改过的标题", "改过的正文。\n"
    with django_capture_on_commit_callbacks(execute=True):  # the content version moves
        note.save()
    assert "改过的标题" in client.get("/llms.txt").content.decode()
    assert "改过的正文" in client.get("/llms-full.txt").content.decode()


def test_a_fixed_number_of_queries_however_many_notes(
    client, notes, django_assert_num_queries, django_capture_on_commit_callbacks, monkeypatch
):
    """The state; the list's notes (with their series) in one query, or the full text's notes
    in one and their tags, old paths and corrections in three a chunk; the parts' versions."""
    client.get("/")  # the site settings' copy, as on a running site
    monkeypatch.setattr(llms_txt, "CHUNK", 2)
    with django_assert_num_queries(3):
        client.get("/llms.txt")
    with django_assert_num_queries(3 + 3 * 3):  # five notes: three chunks
        client.get("/llms-full.txt")
    with django_capture_on_commit_callbacks(execute=True):  # the content version moves
        for n in range(5):
            make_note(title=f"又一篇 {n}", slug=f"more-{n}", published_ago=timedelta(hours=n + 1))
    clear_test_cache()  # rendered afresh, as the first time
    client.get("/")
    with django_assert_num_queries(3):
        assert "又一篇 4" in client.get("/llms.txt").content.decode()
    with django_assert_num_queries(3 + 3 * 5):  # ten notes: five chunks
        client.get("/llms-full.txt")
    with django_assert_num_queries(1):
        assert client.get("/llms-full.txt")["X-Page-Cache"] == "hit"


def test_the_home_page_links_both(client, notes):
    html = client.get("/en/").content.decode()
    assert '<link rel="alternate" type="text/plain" title="llms.txt" href="/en/llms.txt">' in html
    assert 'href="/en/llms-full.txt"' in html


def test_robots_txt_names_llms_txt_and_leaves_the_crawlers_of_models_alone(client, db):
    text = client.get("/robots.txt").content.decode()
    assert f"# llms.txt: {SITE}/llms.txt" in text and f"{SITE}/en/llms.txt" in text
    assert "GPTBot" not in text and text.count("User-agent:") == 1


@override_settings(BIJI_ROBOTS_AI="disallow")
def test_robots_txt_asks_the_crawlers_of_models_to_stay_off(client, db):
    text = client.get("/robots.txt").content.decode()
    groups = text.split("\n\n")
    ai = next(group for group in groups if "GPTBot" in group)
    assert "User-agent: ClaudeBot" in ai and "User-agent: CCBot" in ai
    assert ai.splitlines()[-1] == "Disallow: /"
    assert "User-agent: *" in groups[0] and "Disallow: /\n" not in groups[0] + "\n"
    assert "llms.txt" not in text


@override_settings(BIJI_LLMS_TXT=False)
def test_switched_off_nothing_answers_and_nothing_links(client, notes):
    for path in ("/llms.txt", "/en/llms.txt", "/llms-full.txt", "/en/llms-full.txt"):
        assert client.get(path).status_code == 404, path
    assert client.get("/notes/warp/index.md").status_code == 404
    assert "llms.txt" not in client.get("/").content.decode()
    assert "llms.txt" not in client.get("/robots.txt").content.decode()
