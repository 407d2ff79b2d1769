"""Sidenotes and footnote popovers are made in the reader's browser (static/js/site.js): what the
server sends, the note's page, its feed entries and its email, keeps the plain footnotes: each
reference a link to its footnote in the list at the note's end, and a link back. The browser's
side is tests/browser/test_sidenotes.py."""

import feedparser
import pytest
from bs4 import BeautifulSoup

from blog.mail.note_email import NoteEmail
from blog.models import Language
from tests.factories import make_note
from tests.shared_data import module_data

SITE = "https://blog.example"
BODIES = {
    Language.CHINESE: (
        "加速比不会超过 $1/f$[^amdahl]，并行部分再快也一样[^gustafson]。\n\n"
        "[^amdahl]: Amdahl 在 1967 年提出这个论点。\n"
        "[^gustafson]: Gustafson 换了一个问法：问题规模随处理器增长。\n"
    ),
    Language.ENGLISH: (
        "PCIe 4.0 x16 gives about 25 GB/s in practice[^rate], rarely the bottleneck[^hover].\n\n"
        "[^rate]: The link carries 31.5 GB/s each way.\n"
        "[^hover]: Nsight Systems shows each copy's throughput.\n"
    ),
}
FOOTNOTES = {
    Language.CHINESE: {
        "amdahl": "Amdahl 在 1967 年提出这个论点。",
        "gustafson": "Gustafson 换了一个问法：问题规模随处理器增长。",
    },
    Language.ENGLISH: {
        "rate": "The link carries 31.5 GB/s each way.",
        "hover": "Nsight Systems shows each copy's throughput.",
    },
}
LANGUAGES = pytest.mark.parametrize("language", [Language.CHINESE, Language.ENGLISH])
pytestmark = pytest.mark.django_db


@module_data
def footnoted_notes():
    """A published note with two footnotes in each language, by language."""
    return {
        language: make_note(slug=f"footnotes-{language}", language=language, body=body)
        for language, body in BODIES.items()
    }


@pytest.fixture
def notes(footnoted_notes):
    return footnoted_notes.copy()


def expect_plain_footnotes(html, language, page=""):
    """Each reference of ``html`` links to its footnote in the list (``page`` + "#fn-…"), which
    says its text and links back; nothing of sidenotes or popovers."""
    doc = BeautifulSoup(html, "html.parser")
    refs = doc.select("sup > a.footnote-ref")
    assert [ref["href"] for ref in refs] == [f"{page}#fn-{label}" for label in FOOTNOTES[language]]
    for label, text in FOOTNOTES[language].items():
        item = doc.select_one(f"div.footnote > ol > li[id='fn-{label}']")
        assert item is not None, label
        back = item.select_one("a.footnote-backref")
        assert back["href"] == f"{page}#fnref-{label}"
        back.extract()
        assert item.get_text(" ", strip=True) == text
    assert not doc.select(".sidenote, aside, [popover], .footnote-popover")


@LANGUAGES
def test_the_page_sends_plain_footnotes(client, notes, language):
    note = notes[language]
    prefix = "" if language == Language.CHINESE else "/en"
    response = client.get(prefix + note.get_absolute_url())
    assert response.status_code == 200
    prose = BeautifulSoup(response.content, "html.parser").select_one(".page-note .prose")
    expect_plain_footnotes(str(prose), language)


@LANGUAGES
def test_feed_entries_carry_plain_footnotes(client, settings, notes, language):
    settings.SITE_URL = SITE
    note = notes[language]
    parsed = feedparser.parse(client.get("/feed/").content)
    entry = next(e for e in parsed.entries if e.link.endswith(note.get_absolute_url()))
    expect_plain_footnotes(entry.content[0].value, language, page=entry.link)


@LANGUAGES
def test_emails_carry_plain_footnotes(settings, notes, language):
    settings.SITE_URL = SITE
    settings.DEFAULT_FROM_EMAIL = "notes@blog.example"
    email = NoteEmail(notes[language])
    expect_plain_footnotes(email.html, language, page=email.url)
    # The text part: the references as [1] [2], the footnotes as a numbered list at the end.
    assert "[1]" in email.text and "[2]" in email.text
    for number, text in enumerate(FOOTNOTES[language].values(), start=1):
        assert f"{number}. {text}" in email.text
