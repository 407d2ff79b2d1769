"""A note's "related notes" list a translated pair once: it is one work, shown in the note's
own language where that version is published (the rule its series box follows)."""

import pytest
from bs4 import BeautifulSoup

from blog.models import Language
from tests.factories import make_draft, make_note, make_tag

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


def related_hrefs(client, url):
    response = client.get(url)
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    return [a["href"] for a in page.select(".related a")]


@pytest.fixture
def tag(db):
    return make_tag("Kernels", "算子")


def test_a_translated_pair_is_listed_once_in_the_notes_language(client, tag):
    make_note(slug="reading", tags=[tag])
    zh = make_note(slug="pair-zh", tags=[tag])
    make_note(slug="pair-en", language=Language.ENGLISH, translation=zh, tags=[tag])

    assert related_hrefs(client, "/notes/reading/") == ["/notes/pair-zh/"]


def test_an_english_note_lists_the_english_version_of_a_pair(client, tag):
    make_note(slug="reading-en", language=Language.ENGLISH, tags=[tag])
    zh = make_note(slug="pair-zh", tags=[tag])
    make_note(slug="pair-en", language=Language.ENGLISH, translation=zh, tags=[tag])

    assert related_hrefs(client, "/en/notes/reading-en/") == ["/en/notes/pair-en/"]


def test_a_pair_whose_version_in_the_notes_language_is_a_draft_shows_the_published_one(client, tag):
    make_note(slug="reading", tags=[tag])
    draft = make_draft(slug="pair-zh", tags=[tag])
    make_note(slug="pair-en", language=Language.ENGLISH, translation=draft, tags=[tag])

    assert related_hrefs(client, "/notes/reading/") == ["/notes/pair-en/"]


def test_the_slots_freed_by_a_pair_go_to_other_notes(client, tag):
    """Four related notes are shown; a pair takes one of them, not two."""
    make_note(slug="reading", tags=[tag])
    for i in range(3):
        zh = make_note(slug=f"pair-{i}-zh", tags=[tag])
        make_note(slug=f"pair-{i}-en", language=Language.ENGLISH, translation=zh, tags=[tag])
    make_note(slug="single", tags=[tag])

    shown = related_hrefs(client, "/notes/reading/")
    expected = ["/notes/pair-0-zh/", "/notes/pair-1-zh/", "/notes/pair-2-zh/", "/notes/single/"]
    assert sorted(shown) == expected
