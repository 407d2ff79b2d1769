"""Share cards: the 1200×630 image a link to biji shows, drawn with Pillow in Noto Sans CJK; PNG, or
JPEG with a cover photo. :meth:`Card.fingerprint` names the file, so a changed card is a new file no
platform's copy stands for."""

import hashlib
import io
import json
from dataclasses import asdict, dataclass

import regex
from PIL import Image, ImageDraw, ImageOps

from blog.images.card_fonts import CardFonts, Face, has_glyph
from blog.text.bidi import strip_explicit_bidi
from blog.text.line_breaks import fit

# Raise it whenever the layout below changes: every card is then made again.
LAYOUT_VERSION = 1

WIDTH, HEIGHT = 1200, 630
# Colours of static/css/site.css (light theme): --bg, --bg-soft, --text, --muted, --border,
# --accent.
BACKGROUND = "#ffffff"
SOFT = "#f5f7f9"
TEXT = "#1f2328"
MUTED = "#57606a"
BORDER = "#d0d7de"
ACCENT = "#0b5cad"

BAR = 16  # the accent bar on the left edge
LEFT = 96  # where text starts
RIGHT_MARGIN = 96
TOP = 72  # the top of the line above the title
COVER_PANEL = 440  # the cover's width, on the right edge
COVER_GAP = 64  # between the text and the cover
TITLE_TOP = 150
TITLE_BOTTOM = 480
FOOT_RULE = 520
FOOT_TEXT = 548  # top of the foot's text; it ends above HEIGHT - 40
LINE_HEIGHT = 1.25
TITLE_SIZES = tuple(range(72, 39, -4))  # 72 … 40 px
MAX_TITLE_LINES = 4
KICKER_SIZE = 32
SUBTITLE_SIZES = (36, 32, 28)
FOOT_SIZE = 28
LABEL_SIZE = 24
JPEG_QUALITY = 85

_clusters = regex.compile(r"\X").findall
TEXTS = ("title", "kicker", "subtitle", "detail", "site", "language_label")


@dataclass(frozen=True)
class Card:
    kind: str  # "note", "series", "tag", "home": the folder of its file
    language: str  # the language of its text (zh-hans, en)
    title: str
    kicker: str = ""  # above the title: "GPU 笔记 第 2 篇", "Series", "Tag"
    subtitle: str = ""  # under the title: the other language's name, the tagline
    detail: str = ""  # at the foot: "12 notes"
    site: str = ""  # at the foot: the site's name
    language_label: str = ""  # at the foot: "中文", "English"
    cover: str = ""  # the storage name of the cover image drawn on the right, if any

    def __post_init__(self):
        # Cleared here, so that the fingerprint hashes what is drawn: a card drawn reversed
        # before gets a new file.
        for name in TEXTS:
            object.__setattr__(self, name, strip_explicit_bidi(getattr(self, name)))

    @property
    def extension(self) -> str:
        return "jpg" if self.cover else "png"

    @property
    def content_type(self) -> str:
        return "image/jpeg" if self.cover else "image/png"

    def fingerprint(self, fonts: CardFonts) -> str:
        drawn = json.dumps(
            [LAYOUT_VERSION, fonts.identity, asdict(self)], ensure_ascii=False, sort_keys=True
        )
        return hashlib.sha256(drawn.encode()).hexdigest()[:12]


def drawable(text: str, face: Face) -> str:
    """``text`` without the characters the face has no glyph for (whitespace collapsed):
    what the card shows of it, never a box."""
    kept = "".join(cluster for cluster in _clusters(text) if has_glyph(face, cluster[0]))
    return " ".join(kept.split())


def draw(card: Card, fonts: CardFonts, cover: Image.Image | None = None) -> bytes:
    """The card as PNG bytes, or JPEG with a cover (``cover``: the opened image)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    canvas = ImageDraw.Draw(image)
    canvas.rectangle((0, 0, BAR - 1, HEIGHT), fill=ACCENT)
    right = WIDTH - RIGHT_MARGIN
    if cover is not None:
        panel = ImageOps.fit(
            ImageOps.exif_transpose(cover).convert("RGB"), (COVER_PANEL, HEIGHT), Image.LANCZOS
        )
        image.paste(panel, (WIDTH - COVER_PANEL, 0))
        right = WIDTH - COVER_PANEL - COVER_GAP
    width = right - LEFT
    _draw_kicker(canvas, card, fonts, width)
    bottom = _draw_title(canvas, card, fonts, width)
    _draw_subtitle(canvas, card, fonts, width, bottom)
    _draw_foot(canvas, card, fonts, right)
    out = io.BytesIO()
    if cover is not None:
        image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    else:
        image.save(out, "PNG", optimize=True)
    return out.getvalue()


def _measure(face: Face):
    return lambda text, size: face.font(size).getlength(text)


def _one_line(text, face, size, width):
    """``text`` on one line at ``size``, shortened with an ellipsis if it is too long."""
    return fit(text, width, _measure(face), sizes=(size,), max_lines=1).lines


def _draw_kicker(canvas, card, fonts, width):
    text = drawable(card.kicker, fonts.regular)
    if text:
        lines = _one_line(text, fonts.regular, KICKER_SIZE, width)
        canvas.text(
            (LEFT, TOP), lines[0], font=fonts.regular.font(KICKER_SIZE), fill=ACCENT, anchor="la"
        )


def _title_lines(size):
    return min(MAX_TITLE_LINES, int((TITLE_BOTTOM - TITLE_TOP) // (size * LINE_HEIGHT)))


def title_layout(card: Card, fonts: CardFonts, width: int):
    """The title's size and lines in a box ``width`` wide (:func:`blog.text.line_breaks.fit`)."""
    return fit(
        drawable(card.title, fonts.bold),
        width,
        _measure(fonts.bold),
        sizes=TITLE_SIZES,
        max_lines=_title_lines,
    )


def _draw_title(canvas, card, fonts, width) -> int:
    """Draws the title; returns where it ends."""
    fitted = title_layout(card, fonts, width)
    font = fonts.bold.font(fitted.size)
    step = round(fitted.size * LINE_HEIGHT)
    y = TITLE_TOP
    for line in fitted.lines:
        canvas.text((LEFT, y), line, font=font, fill=TEXT, anchor="la")
        y += step
    return y


def _draw_subtitle(canvas, card, fonts, width, top):
    text = drawable(card.subtitle, fonts.regular)
    if not text:
        return
    room = FOOT_RULE - 24 - (top + 16)
    fitted = fit(
        text,
        width,
        _measure(fonts.regular),
        sizes=SUBTITLE_SIZES,
        max_lines=lambda size: min(2, int(room // (size * LINE_HEIGHT))),
    )
    if not fitted.lines or room < fitted.size * LINE_HEIGHT:
        return  # a long title left no room
    font = fonts.regular.font(fitted.size)
    y = top + 16
    for line in fitted.lines:
        canvas.text((LEFT, y), line, font=font, fill=MUTED, anchor="la")
        y += round(fitted.size * LINE_HEIGHT)


def _draw_foot(canvas, card, fonts, right):
    canvas.line((LEFT, FOOT_RULE, right, FOOT_RULE), fill=BORDER, width=2)
    x = right
    label = drawable(card.language_label, fonts.regular)
    if label:
        font = fonts.regular.font(LABEL_SIZE)
        text_width = font.getlength(label)
        box = (x - text_width - 32, FOOT_TEXT - 2, x, FOOT_TEXT + 40)
        canvas.rounded_rectangle(box, radius=20, fill=SOFT, outline=BORDER, width=2)
        canvas.text((x - 16, FOOT_TEXT + 19), label, font=font, fill=MUTED, anchor="rm")
        x = box[0] - 24
    detail = drawable(card.detail, fonts.regular)
    if detail:
        font = fonts.regular.font(FOOT_SIZE)
        canvas.text((x, FOOT_TEXT + 19), detail, font=font, fill=MUTED, anchor="rm")
        x -= font.getlength(detail) + 32
    site = drawable(card.site, fonts.bold)
    if site and x > LEFT:
        line = _one_line(site, fonts.bold, FOOT_SIZE, x - LEFT)[0]
        canvas.text(
            (LEFT, FOOT_TEXT + 19), line, font=fonts.bold.font(FOOT_SIZE), fill=TEXT, anchor="lm"
        )
