"""A right-to-left override pasted into a title reverses nothing: not the share card, not the
window's title and the site's name after it, not what a feed reader or a share preview shows.
The direction marks an Arabic or Hebrew title needs are kept."""

import json
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse
from PIL import ImageDraw

from blog.images.card_fonts import card_fonts
from blog.images.cards import Card, draw
from blog.mail.note_email import NoteEmail
from blog.models import SiteSettings
from blog.text.bidi import BIDI_CONTROLS, EXPLICIT, MARKS, strip_explicit_bidi
from tests.factories import make_note

RLO, PDF, RLI, PDI, RLM = "\u202e", "\u202c", "\u2067", "\u2069", "\u200f"
# "Invoice exe.pdf" as a reader would see it: the override turns "fdp.exe" around.
SPOOFED = f"Invoice {RLO}fdp.exe"
MEANT = "Invoice fdp.exe"
# Hebrew, "What's new in CUDA 12!": the mark keeps the "!" at the title's (left) end.
HEBREW = f"מה חדש ב-CUDA 12{RLM}!"


def test_the_controls_are_those_of_unicode_s_bidirectional_algorithm():
    listed = {*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
    listed |= {"\u200e", "\u200f", "\u061c"}
    assert listed == BIDI_CONTROLS
    assert strip_explicit_bidi("".join(EXPLICIT)) == ""
    assert strip_explicit_bidi(f"a{RLI}b{PDI}{RLM}c") == f"ab{RLM}c"
    assert strip_explicit_bidi(HEBREW) == HEBREW  # marks reverse nothing
    assert set(MARKS) <= set(strip_explicit_bidi("".join(BIDI_CONTROLS)))


# --- the page ------------------------------------------------------------------------------


def head_titles(html):
    """The page's <title>, og:title and twitter:title, as the browser and a preview read them."""
    title = re.search(r"<title>(.*?)</title>", html, re.S)[1]
    metas = re.findall(r'<meta (?:property|name)="(?:og|twitter):title" content="([^"]*)"', html)
    return [title, *metas]


@pytest.mark.django_db
def test_an_override_in_a_title_reverses_neither_it_nor_the_site_s_name(client):
    site = SiteSettings.load()
    site.title = f"{RLO}笔记"
    site.save()
    note = make_note(title=SPOOFED, slug="invoice", language="en")
    html = client.get(note.get_absolute_url()).content.decode()
    title, og_title, twitter_title = head_titles(html)
    assert title == f"{MEANT} · 笔记"
    assert og_title == twitter_title == MEANT
    [jsonld] = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert json.loads(jsonld)["headline"] == MEANT


@pytest.mark.django_db
def test_a_hebrew_title_keeps_its_marks(client):
    note = make_note(title=HEBREW, slug="cuda-12", language="en")
    html = client.get(note.get_absolute_url()).content.decode()
    title, og_title, _twitter = head_titles(html)
    assert title.startswith(f"{HEBREW} · ") and og_title == HEBREW


@pytest.mark.django_db
def test_a_feed_s_titles_carry_no_override(client):
    make_note(title=SPOOFED, slug="invoice", language="en")
    feed = ET.fromstring(client.get(reverse("feeds:all-rss")).content)  # noqa: S314 (ours)
    assert [item.findtext("title") for item in feed.iter("item")] == [MEANT]


# --- the share card ------------------------------------------------------------------------


@pytest.fixture
def fonts():
    found = card_fonts()
    if found is None:
        pytest.fail("Noto Sans CJK is missing: run scripts/install-fonts.sh")
    return found


@pytest.fixture
def drawn(monkeypatch):
    """The texts the card's drawing is handed, in order."""
    texts = []
    original = ImageDraw.ImageDraw.text

    def text(self, xy, words, *args, **kwargs):
        texts.append(words)
        return original(self, xy, words, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    return texts


def note_card(title, kicker="GPU 笔记 第 2 篇"):
    return Card(kind="note", language="en", title=title, kicker=kicker, site="biji")


def test_a_card_draws_the_title_as_written_not_reversed(fonts, drawn):
    spoofed = draw(note_card(SPOOFED, kicker=f"{RLI}GPU 笔记{PDI} 第 2 篇{PDF}"), fonts)
    assert MEANT in drawn and "GPU 笔记 第 2 篇" in drawn
    assert not any(set(text) & EXPLICIT for text in drawn)
    assert spoofed == draw(note_card(MEANT), fonts)  # the very same pixels


def test_a_card_drawn_reversed_before_is_a_new_file():
    # The name of a card's file hashes what it shows (blog.images.card_store).
    assert note_card(SPOOFED) == note_card(MEANT)
    assert note_card(f"Hello{RLM}").title == f"Hello{RLM}"


@pytest.mark.django_db
def test_an_emails_subject_carries_no_override():
    note = make_note(title=SPOOFED, slug="invoice", language="en")
    message = NoteEmail(note).test_message(["reader@example.com"])
    assert message.subject == MEANT
