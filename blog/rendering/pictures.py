"""Stored images in the sanitised HTML as ``<picture>`` elements with AVIF and WebP ``srcset``, the
original the fallback, ``width`` and ``height`` set and all but the first lazy. It runs after the
sanitizer, so every variant named was made by biji.

Pure functions, no ORM; may import :mod:`blog.text` only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

# The note column (static/css/site.css: .wrap, --measure), for every <source>.
SIZES = "(min-width: 46rem) 44rem, calc(100vw - 2rem)"
# Modern formats, best first: a browser takes the first <source> whose type it supports.
SOURCE_TYPES = (("avif", "image/avif"), ("webp", "image/webp"))
LAZY = [("loading", "lazy"), ("decoding", "async")]


@dataclass(frozen=True)
class Variant:
    format: str  # "avif" or "webp"
    width: int
    url: str


@dataclass(frozen=True)
class KnownImage:
    """A stored image: its size, and the variants whose files exist (any order)."""

    width: int
    height: int
    variants: tuple[Variant, ...] = ()


Attrs = list[tuple[str, str | None]]


@dataclass(frozen=True)
class _Tag:
    start: int
    end: int
    name: str
    attrs: Attrs | None  # None for an end tag


class _TagFinder(HTMLParser):
    """The start and end tags named ``wanted``, with where each is in the source."""

    def __init__(self, source: str, wanted: set[str]):
        super().__init__(convert_charrefs=True)
        self.source, self.wanted = source, wanted
        self.tags: list[_Tag] = []
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag, attrs):
        if tag in self.wanted:
            start = self._offset()
            self.tags.append(_Tag(start, start + len(self.get_starttag_text()), tag, attrs))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag in self.wanted:
            start = self._offset()
            self.tags.append(_Tag(start, self.source.index(">", start) + 1, tag, None))


def _tags(html: str, wanted: set[str]) -> list[_Tag]:
    finder = _TagFinder(html, wanted)
    finder.feed(html)
    finder.close()
    return finder.tags


def _replaced(html: str, edits: list[tuple[_Tag, str]]) -> str:
    out, last = [], 0
    for tag, text in edits:
        out += [html[last : tag.start], text]
        last = tag.end
    out.append(html[last:])
    return "".join(out)


def _start_tag(name: str, attrs: Attrs) -> str:
    parts = [name] + [
        key if value is None else f'{key}="{escape(value, quote=True)}"' for key, value in attrs
    ]
    return f"<{' '.join(parts)}>"


def media_name(src: str | None, media_url: str) -> str | None:
    """The storage name ``src`` points at under ``media_url`` (``/media/``), or None."""
    if not src or not src.startswith(media_url):
        return None
    path = urlsplit(src[len(media_url) :]).path
    return unquote(path) or None


def media_names(html: str, media_url: str) -> set[str]:
    """The storage names of the images in ``html`` served from ``media_url``."""
    if "<img" not in html:
        return set()
    names = (media_name(dict(tag.attrs).get("src"), media_url) for tag in _tags(html, {"img"}))
    return {name for name in names if name}


def _sized(attrs: Attrs, image: KnownImage) -> Attrs:
    """``attrs`` with both ``width`` and ``height``: the author's, completed at the image's
    ratio, or else the stored image's own."""
    given = dict(attrs)
    width, height = given.get("width"), given.get("height")
    if width and height:
        return attrs
    kept = [(key, value) for key, value in attrs if key not in {"width", "height"}]
    try:
        if width:
            height = str(max(1, round(int(width) * image.height / image.width)))
        elif height:
            width = str(max(1, round(int(height) * image.width / image.height)))
    except (ValueError, ZeroDivisionError):  # "50%" or the like: the stored size instead
        width = height = None
    if not (width and height):
        width, height = str(image.width), str(image.height)
    return [*kept, ("width", width), ("height", height)]


def _candidate(url: str) -> str:
    """``url`` as one ``srcset`` candidate's URL: whitespace or commas would split it."""
    return re.sub(r"[\s,]", lambda m: f"%{ord(m.group()):02X}", url)


def _srcset(image: KnownImage, fmt: str, original: str) -> str:
    smaller = {v.width: v for v in image.variants if v.format == fmt and v.width < image.width}
    candidates = [(v.url, v.width) for _, v in sorted(smaller.items())]
    candidates.append((original, image.width))
    return ", ".join(f"{_candidate(url)} {width}w" for url, width in candidates)


def picture(attrs: Attrs, image: KnownImage, *, lazy: bool) -> str:
    """The ``<img>`` of ``attrs`` (its ``src`` the original) as a sized ``<picture>``, or as a
    sized ``<img>`` when there is no variant of it."""
    kept = [(key, value) for key, value in attrs if key not in {"loading", "decoding"}]
    img = _start_tag("img", _sized(kept, image) + (LAZY if lazy else []))
    if not image.variants:
        return img
    original = dict(attrs).get("src") or ""
    sources = "".join(
        _start_tag(
            "source",
            [("type", mime), ("srcset", _srcset(image, fmt, original)), ("sizes", SIZES)],
        )
        for fmt, mime in SOURCE_TYPES
        if any(v.format == fmt for v in image.variants)
    )
    return f"<picture>{sources}{img}</picture>"


def with_pictures(
    html: str, images: Mapping[str, KnownImage], media_url: str, *, eager_first: bool = True
) -> str:
    """``html`` with each image of ``images`` as a :func:`picture`; the first image of the
    body is not lazy when ``eager_first``."""
    if "<img" not in html:
        return html
    edits = []
    for index, tag in enumerate(_tags(html, {"img"})):
        name = media_name(dict(tag.attrs).get("src"), media_url)
        image = images.get(name) if name else None
        if image is None or image.width <= 0 or image.height <= 0:
            continue  # not an image biji stored: as the sanitizer left it
        lazy = index > 0 or not eager_first
        edits.append((tag, picture(tag.attrs, image, lazy=lazy)))
    return _replaced(html, edits) if edits else html


def cover_picture(src: str, alt: str, image: KnownImage | None) -> str:
    """A note's cover image as the page shows it, first on the page: never lazy."""
    attrs: Attrs = [("src", src), ("alt", alt)]
    img = picture(attrs, image, lazy=False) if image else _start_tag("img", attrs)
    return f'<figure class="cover">{img}</figure>'


def without_pictures(html: str) -> str:
    """``html`` with each ``<picture>`` back to its one ``<img>`` (the original), for
    readers that fetch one image and keep it: feeds, emails."""
    if "<picture" not in html:
        return html
    return _replaced(html, [(tag, "") for tag in _tags(html, {"picture", "source"})])
