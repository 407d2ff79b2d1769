"""The parallel view of a translated pair (/notes/<slug>/parallel/): the two notes' blocks side
by side in both interfaces, the original's changed blocks marked, kept out of search engines,
within the query budget, and rendered again when either note is edited."""

import pytest
from bs4 import BeautifulSoup
from django.test import override_settings

from blog.caching import pages as page_cache
from blog.caching import site_settings
from blog.models import Language, Note, SiteSettings, Status
from blog.models.translations import link_translation
from tests.factories import make_note

ORIGINAL = """开头一段。

## 调度

第一段：warp 调度。

第二段：延迟隐藏。

```python
print("hello")
```

$$
a^2 + b^2 = c^2
$$

## 小结

最后一段。
"""

TRANSLATION = """An opening paragraph.

## Scheduling

First paragraph: warp scheduling.

Second paragraph: latency hiding.

```python
print("hello")
```

$$
a^2 + b^2 = c^2
$$

## Summary

A last paragraph.
"""


@pytest.fixture(autouse=True)
def _every_answer_from_the_view(settings):
    """Inside a test's transaction an edit does not move the cached pages' versions (they move
    after the commit): each answer comes from the view, but in the test of the cache itself."""
    settings.BIJI_PAGE_CACHE_SECONDS = 0


@pytest.fixture
def pair(db):
    """A Chinese original and its English translation (which holds the link), in line."""
    original = make_note(title="调度笔记", slug="scheduling", body=ORIGINAL)
    translation = make_note(
        title="Notes on scheduling",
        slug="scheduling-en",
        language=Language.ENGLISH,
        body=TRANSLATION,
    )
    link_translation(translation, original)
    original.refresh_from_db()
    translation.refresh_from_db()
    return original, translation


def page(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return BeautifulSoup(response.content, "html.parser")


def rows(soup):
    """Each row as (original's text, translation's text, unmatched note or None), the blocks'
    text without spaces or the headings' "¶"."""

    def text(row, side):
        cell = row.select_one(f".parallel-{side}.prose")
        if cell is None:
            return None
        blocks = (block.get_text() for block in cell.select(".parallel-block"))
        return "|".join("".join(block.replace("¶", "").split()) for block in blocks)

    return [
        (
            text(row, "original"),
            text(row, "translation"),
            note.get_text(strip=True) if (note := row.select_one(".parallel-note")) else None,
        )
        for row in soup.select(".parallel-rows > .parallel-row")
    ]


def edit(note, body):
    note.body = body
    note.save()


def changed_blocks(soup):
    """The original's blocks marked as changed, as (the mark, the block's text)."""
    return [
        (block.select_one(".parallel-changed").get_text(), block.p.find_next("p").get_text())
        for block in soup.select(".parallel-original .parallel-block.is-changed")
    ]


# --- which pairs have one ---------------------------------------------------------------------


def test_an_unknown_slug_is_a_404(client, db):
    assert client.get("/notes/no-such-note/parallel/").status_code == 404


def test_a_note_without_translation_has_none(client, db):
    make_note(slug="alone")
    assert client.get("/notes/alone/parallel/").status_code == 404
    assert client.get("/en/notes/alone/parallel/").status_code == 404


@pytest.mark.parametrize("which", ["original", "translation"])
@pytest.mark.parametrize("status", ["draft", "scheduled"])
def test_a_pair_with_an_unpublished_note_is_a_404_for_readers(client, pair, which, status):
    note = pair[0] if which == "original" else pair[1]
    if status == "draft":
        Note.objects.filter(pk=note.pk).update(status=Status.DRAFT)
    else:
        Note.objects.filter(pk=note.pk).update(published_at=note.published_at.replace(year=2999))
    for slug in ("scheduling", "scheduling-en"):
        assert client.get(f"/notes/{slug}/parallel/").status_code == 404


def test_staff_preview_a_pair_with_a_draft_never_cached(staff_client, pair):
    Note.objects.filter(pk=pair[1].pk).update(status=Status.DRAFT)
    response = staff_client.get("/notes/scheduling/parallel/")
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"] and "private" in response["Cache-Control"]
    assert BeautifulSoup(response.content, "html.parser").select_one(".banner-draft")


# --- what it shows ----------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "/en"])
@pytest.mark.parametrize("slug", ["scheduling", "scheduling-en"])
def test_the_pair_side_by_side_at_either_slug_in_both_interfaces(client, pair, prefix, slug):
    soup = page(client, f"{prefix}/notes/{slug}/parallel/")
    assert rows(soup) == [
        ("开头一段。", "Anopeningparagraph.", None),
        ("调度", "Scheduling", None),
        ("第一段：warp调度。", "Firstparagraph:warpscheduling.", None),
        ("第二段：延迟隐藏。", "Secondparagraph:latencyhiding.", None),
        ('Pythonprint("hello")', 'Pythonprint("hello")', None),
        ("a2+b2=c2a^2+b^2=c^2", "a2+b2=c2a^2+b^2=c^2", None),  # MathML, and its TeX
        ("小结", "Summary", None),
        ("最后一段。", "Alastparagraph.", None),
    ]
    assert len(soup.select(".parallel-rows .parallel-row:nth-child(6) math")) == 2
    # Each column in its note's language, the original first; both titles link their notes.
    for row in soup.select(".parallel-rows > .parallel-row"):
        original, translation = row.select(".parallel-cell")
        assert (original["lang"], translation["lang"]) == ("zh-Hans", "en")
    heads = soup.select(".parallel-heads a")
    assert [(a["href"], a["lang"], a.get_text()) for a in heads] == [
        ("/notes/scheduling/", "zh-Hans", "调度笔记"),
        ("/en/notes/scheduling-en/", "en", "Notes on scheduling"),
    ]


def test_the_translation_as_original_goes_on_the_left(client, db):
    """Whichever language the original is written in: the note the link points at."""
    english = make_note(title="Original", slug="orig", language=Language.ENGLISH, body="Hello.")
    chinese = make_note(title="译文", slug="yiwen", body="你好。")
    link_translation(chinese, english)
    soup = page(client, "/notes/yiwen/parallel/")
    assert rows(soup) == [("Hello.", "你好。", None)]
    assert soup.select_one(".parallel-heads .parallel-original a")["href"] == "/en/notes/orig/"


def test_headings_in_two_notes_keep_their_own_anchors(client, pair):
    edit(pair[1], TRANSLATION.replace("## Scheduling", "## 调度"))  # the same id as the original's
    soup = page(client, "/notes/scheduling/parallel/")
    ids = [element["id"] for element in soup.select("[id]")]
    assert len(ids) == len(set(ids))
    for link in soup.select(".parallel-rows a[href^='#']"):
        assert soup.find(id=link["href"][1:]) is not None, link


def test_passages_that_do_not_correspond_say_so(client, pair):
    edit(
        pair[1], "*A note from the translator.*\n\n" + TRANSLATION.replace("## Summary", "## More")
    )
    edit(pair[1], pair[1].body + "\n## Epilogue\n\nOnly in English.\n")
    shown = rows(page(client, "/en/notes/scheduling/parallel/"))
    assert shown[0] == (
        "开头一段。",
        "Anotefromthetranslator.|Anopeningparagraph.",
        "These passages do not correspond block for block.",
    )
    assert shown[1:-1] == [(a, b, None) for a, b, _ in shown[1:-1]]  # the rest pairs
    assert shown[-1] == (None, "Epilogue|OnlyinEnglish.", "Not in the original.")


# --- search engines ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "canonical"),
    [
        ("/notes/scheduling-en/parallel/", "/notes/scheduling/"),
        ("/en/notes/scheduling/parallel/", "/en/notes/scheduling-en/"),
    ],
)
def test_noindex_with_a_canonical_to_the_note_in_the_interface_language(
    client, pair, settings, path, canonical
):
    soup = page(client, path)
    assert soup.select_one('meta[name="robots"]')["content"] == "noindex"
    assert soup.select_one('link[rel="canonical"]')["href"] == settings.SITE_URL + canonical
    assert soup.h1.get_text() == ("Notes on scheduling" if path.startswith("/en/") else "调度笔记")


# --- changed blocks ---------------------------------------------------------------------------


def test_a_block_edited_in_the_original_is_marked(client, pair):
    assert changed_blocks(page(client, "/notes/scheduling/parallel/")) == []
    edit(pair[0], ORIGINAL.replace("第二段：延迟隐藏。", "第二段：延迟隐藏，改过了。"))
    for path, mark in (
        ("/notes/scheduling/parallel/", "译文同步后改动过"),
        ("/en/notes/scheduling-en/parallel/", "Changed since the translation"),
    ):
        soup = page(client, path)
        assert changed_blocks(soup) == [(mark, "第二段：延迟隐藏，改过了。")]
        assert soup.select_one(".parallel-summary")


def test_a_whitespace_only_edit_marks_nothing(client, pair):
    edit(pair[0], ORIGINAL.replace("第一段：warp 调度。", "第一段：warp\n调度。  ") + "\n\n")
    soup = page(client, "/notes/scheduling/parallel/")
    assert changed_blocks(soup) == []
    assert soup.select_one(".parallel-summary") is None


def test_a_pair_never_compared_marks_nothing(client, pair):
    Note.objects.filter(pk=pair[1].pk).update(synced_hashes="")
    edit(pair[0], ORIGINAL.replace("最后一段。", "新的最后一段。"))
    assert changed_blocks(page(client, "/notes/scheduling/parallel/")) == []


# --- cost and cache ---------------------------------------------------------------------------


def test_within_the_query_budget(client, pair, settings, django_assert_max_num_queries):
    """Rendered for the first time and kept: the content state, the pair, the versions of
    the parts it showed (blog.caching.parts)."""
    settings.BIJI_PAGE_CACHE_SECONDS = 3600
    SiteSettings.objects.create(title="笔记 biji")
    site_settings()  # warm: the settings come from the cache, as they do in production
    for path in ("/notes/scheduling/parallel/", "/en/notes/scheduling-en/parallel/"):
        with django_assert_max_num_queries(5, info=path):
            assert client.get(path).status_code == 200


@pytest.mark.django_db(transaction=True)
@override_settings(BIJI_PAGE_CACHE_SECONDS=3600)
@pytest.mark.parametrize("edited", ["original", "translation"])
def test_an_edit_of_either_note_renders_the_page_again(client, edited):
    original = make_note(title="调度笔记", slug="scheduling", body=ORIGINAL)
    translation = make_note(
        title="Notes on scheduling",
        slug="scheduling-en",
        language=Language.ENGLISH,
        body=TRANSLATION,
    )
    link_translation(translation, original)
    path = "/notes/scheduling/parallel/"
    assert client.get(path)[page_cache.HEADER] == "miss"
    assert client.get(path)[page_cache.HEADER] == "hit"
    note = original if edited == "original" else translation
    note.refresh_from_db()
    edit(note, note.body.replace("最后一段。", "新的最后一段。").replace("A last", "The last"))
    response = client.get(path)
    assert response[page_cache.HEADER] == "miss"
    text = response.content.decode()
    assert ("新的最后一段。" in text) if edited == "original" else ("The last paragraph." in text)
