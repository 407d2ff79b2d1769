"""A demo note's share card, as a platform fetching its og:image gets it: a 1200×630 PNG whose
title fits inside the margins, its Chinese drawn in glyphs, not in the boxes a font without
them draws (tofu).

Browser tests only read the demo blog; this module is the exception that makes one card, as
the background runner does after the demo loads under `make run`, in a media folder of its
own, and takes its name away again when the module ends.
"""

import io
import re
from dataclasses import replace

import pytest
from django.core.files.storage import default_storage
from django.test import override_settings
from PIL import Image, ImageChops

from blog.images import cards
from blog.images.card_fonts import NOT_A_CHARACTER, CardFonts, Face, card_fonts
from blog.images.card_store import CardKeeper, note_card
from blog.images.cards import LEFT, RIGHT_MARGIN, WIDTH, draw, title_layout
from blog.models import Note, SiteSettings
from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION
from tests.browser.site import FLASH, FLASH_TITLE, visit
from tests.test_share_cards import latin_only_font

pytestmark = pytest.mark.browser

BACKGROUND = (255, 255, 255)
# Where a card's ink may go (left, top, right, bottom): 64 px in from each side, 24 px from
# the bottom; the accent bar on the left edge aside. Platforms crop and round the corners.
INSIDE = (64, 48, 1200 - 64, 630 - 24)


@pytest.fixture(scope="module")
def flash_card(demo, tmp_path_factory):
    """The FlashAttention note with its card, made as the background runner makes it."""
    media = tmp_path_factory.mktemp("card-media")
    fonts = card_fonts()
    if fonts is None:
        pytest.fail("Noto Sans CJK is missing: run scripts/install-fonts.sh")
    note = Note.objects.get(slug=FLASH.strip("/").split("/")[-1])
    with override_settings(MEDIA_ROOT=media):
        site = SiteSettings.load()
        CardKeeper(fonts).note(note, site)
        note = Note.objects.select_related("series").get(pk=note.pk)
        # Read now: the test itself leaves the database to the live server.
        note.media_root, note.fonts, note.content = media, fonts, note_card(note, site)
        try:
            yield note
        finally:
            note.card = ""
            note.save(update_fields=["card"])


def ink_box(image, background=BACKGROUND):
    """The box around every pixel that differs from the background, the accent bar aside."""
    plain = Image.new("RGB", image.size, background)
    box = ImageChops.difference(image.convert("RGB"), plain).getbbox()
    bar = ImageChops.difference(image.convert("RGB").crop((24, 0, *image.size)), plain).getbbox()
    assert box is not None and bar is not None, "a blank card"
    return (bar[0] + 24, bar[1], bar[2] + 24, bar[3])


def strong(difference):
    """How many pixels of a difference image are clearly different (not antialiasing)."""
    return sum(difference.convert("L").histogram()[65:])


def tofu(text):
    """``text`` with every Chinese character as the box a font draws for what it lacks."""
    return re.sub(f"[{CJK_CHARS}{CJK_PUNCTUATION}]", NOT_A_CHARACTER, text)


def test_the_demo_notes_card_fits_and_its_chinese_is_not_tofu(
    open_page, flash_card, settings, monkeypatch
):
    settings.MEDIA_ROOT = flash_card.media_root
    page = open_page(viewport={"width": 1280, "height": 800})
    visit(page, FLASH)
    image_url = page.locator('meta[property="og:image"]').get_attribute("content")
    assert image_url.startswith(settings.SITE_URL + "/media/cards/notes/"), image_url
    assert page.locator('meta[property="og:image:width"]').get_attribute("content") == "1200"
    assert page.locator('meta[property="og:image:alt"]').get_attribute("content") == FLASH_TITLE
    assert not page.problems, f"problems:\n{page.problems}"

    # Opened as a platform's preview fetcher opens it (an image document asks for
    # /favicon.ico too, which biji does not serve: not the card's problem).
    response = page.goto(image_url)
    assert response.status == 200 and response.headers["content-type"] == "image/png"
    size = page.evaluate("[document.images[0].naturalWidth, document.images[0].naturalHeight]")
    assert size == [1200, 630]
    shot = Image.open(io.BytesIO(page.locator("img").screenshot())).convert("RGB")
    assert shot.size == (1200, 630)

    # What the browser shows is the card as stored.
    with default_storage.open(flash_card.card) as stored:
        card_image = Image.open(io.BytesIO(stored.read())).convert("RGB")
    assert ImageChops.difference(shot, card_image).getbbox() is None

    # The title fits: whole, in the box, and no ink outside the margins.
    fonts, card = flash_card.fonts, flash_card.content
    layout = title_layout(card, fonts, WIDTH - LEFT - RIGHT_MARGIN)
    assert not layout.shortened and "".join(layout.lines).replace(" ", "") == FLASH_TITLE.replace(
        " ", ""
    )
    left, top, right, bottom = ink_box(shot)
    assert INSIDE[0] <= left and INSIDE[1] <= top, (left, top)
    assert right <= INSIDE[2] and bottom <= INSIDE[3], (right, bottom)

    # Not tofu: the same card with its Chinese as the font's boxes (same font, so the same
    # layout and Latin letters) differs where the Chinese is, by a good part of its ink.
    monkeypatch.setattr(cards, "has_glyph", lambda face, character: True)
    boxes = replace(
        card,
        title=tofu(card.title),
        kicker=tofu(card.kicker),
        site=tofu(card.site),
        language_label=tofu(card.language_label),
    )
    boxed = Image.open(io.BytesIO(draw(boxes, fonts))).convert("RGB")
    changed = strong(ImageChops.difference(shot, boxed))
    inked = strong(ImageChops.difference(shot, Image.new("RGB", shot.size, BACKGROUND)))
    assert changed > inked * 0.2, f"{changed} of {inked} inked pixels differ from boxes"
    differs = ImageChops.difference(shot, boxed).convert("L").point(lambda v: 255 if v > 64 else 0)
    # And it is not the card a font without Chinese draws: the boxes of DejaVu Sans.
    lacking = Face(latin_only_font())
    no_cjk = Image.open(io.BytesIO(draw(card, CardFonts(lacking, lacking)))).convert("RGB")
    assert strong(ImageChops.difference(shot, no_cjk)) > inked * 0.2
    title_box = (LEFT, 140, WIDTH - RIGHT_MARGIN, 480)
    assert differs.crop(title_box).getbbox() is not None  # in the title itself
