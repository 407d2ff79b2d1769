"""The font share cards are set in: Noto Sans CJK SC, from ``BIJI_CARD_FONT``, fontconfig or the
distributions' paths, kept only if it draws Chinese. None found: no card, and a warning."""

import functools
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from PIL import ImageFont

logger = logging.getLogger(__name__)

FAMILY = "Noto Sans CJK SC"
KNOWN_PLACES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-{weight}.ttc",  # Debian, Ubuntu
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-{weight}.ttc",  # Fedora
    "/usr/share/fonts/noto-cjk/NotoSansCJK-{weight}.ttc",  # Arch
)
# Characters a font must draw to set a Chinese card.
PROBE = "中文笔记"
# A private-use code point no font maps: what the font draws for a character it lacks.
NOT_A_CHARACTER = "\U0010fffd"
PROBE_SIZE = 48


@dataclass(frozen=True)
class Face:
    path: str
    index: int = 0

    def font(self, size: int) -> ImageFont.FreeTypeFont:
        return _font(self.path, self.index, size)


@dataclass(frozen=True)
class CardFonts:
    regular: Face
    bold: Face

    @property
    def identity(self) -> str:
        """What a card's name hashes of the fonts: another font draws another card."""
        return "|".join(
            f"{Path(face.path).name}:{face.index}" for face in (self.regular, self.bold)
        )


@functools.lru_cache(maxsize=256)
def _font(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, index=index, layout_engine=ImageFont.Layout.RAQM)


def _mask(font, text):
    mask = font.getmask(text)
    return mask.size, bytes(mask)


@functools.lru_cache(maxsize=8192)
def has_glyph(face: Face, character: str) -> bool:
    """Does the face draw ``character`` (one user-perceived character), rather than the box
    it draws for characters it lacks? Whitespace always passes."""
    if character.isspace():
        return True
    font = face.font(PROBE_SIZE)
    return _mask(font, character) != _mask(font, NOT_A_CHARACTER)


def draws_chinese(face: Face) -> bool:
    try:
        return all(has_glyph(face, character) for character in PROBE)
    except OSError:  # not a font, or no such face in the collection
        return False


def _faces_of(path: str, preferred_family: str = FAMILY) -> Face | None:
    """The face of ``path`` named ``preferred_family`` (a collection holds several), else
    the first; None when the file is not a font."""
    index = 0
    while True:
        try:
            name = _font(path, index, PROBE_SIZE).getname()[0]
        except OSError:
            return Face(path, 0) if index else None
        if name == preferred_family:
            return Face(path, index)
        index += 1


def _fc_match(weight: str) -> Face | None:
    fc_match = shutil.which("fc-match")
    if fc_match is None:
        return None
    try:
        found = subprocess.run(  # noqa: S603 (a fixed command: fontconfig asked for the family)
            [fc_match, "-f", "%{file}\t%{index}", f"{FAMILY}:style={weight}"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    path, _, index = found.partition("\t")
    return Face(path, int(index or 0)) if path else None


def _candidates(weight: str):
    yield _fc_match(weight)
    for place in KNOWN_PLACES:
        path = place.format(weight=weight)
        if os.path.isfile(path):
            yield _faces_of(path)


def _find(weight: str) -> Face | None:
    return next((face for face in _candidates(weight) if face and draws_chinese(face)), None)


def configured_font() -> str:
    return str(getattr(settings, "BIJI_CARD_FONT", "") or os.environ.get("BIJI_CARD_FONT", ""))


def card_fonts() -> CardFonts | None:
    """The fonts to set cards in, or None (and a warning) when the machine has none that
    draws Chinese."""
    return _card_fonts(configured_font())


@functools.lru_cache(maxsize=8)
def _card_fonts(configured: str) -> CardFonts | None:
    if configured:
        face = _faces_of(configured) if os.path.isfile(configured) else None
        if face is not None and draws_chinese(face):
            return CardFonts(regular=face, bold=face)
        logger.warning(
            "BIJI_CARD_FONT=%s is not a font that draws Chinese: no share cards are made.",
            configured,
        )
        return None
    regular, bold = _find("Regular"), _find("Bold")
    if regular is None and bold is None:
        logger.warning(
            "No font with Chinese glyphs (Noto Sans CJK) was found: no share cards are made. "
            "Install it with scripts/install-fonts.sh (Debian's fonts-noto-cjk), or set "
            "BIJI_CARD_FONT to a font file."
        )
        return None
    return CardFonts(regular=regular or bold, bold=bold or regular)


def forget():
    """Look the fonts up again at the next card (a font installed or configured since)."""
    _card_fonts.cache_clear()
