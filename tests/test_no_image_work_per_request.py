"""No request ever renders an image (issue 23): variants and share cards are made in the
background, and a page only names them.

The demo blog plus a note with uploaded photos and a cover, its variants and every card made by
the background runner; then every public page a reader or a crawler can reach from the home
page in either interface, the sitemap and the feeds (lists and their pages, notes, the
parallel view, series, tags, archives, the glossary, CMS pages, search results, every feed and
sitemap) is requested with Pillow's decoders and encoders, ``Image.open``, ``Image.new`` and
``ImageDraw`` replaced by a trap. Each trap records the page and the stack and raises, so a
view that catches the error still fails the test.
"""

import io
import re
import traceback
from urllib.parse import urljoin, urlsplit

import pytest
from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import resolve
from django.utils import translation
from PIL import Image, ImageDraw, ImageFile

from blog.images.uploads import store_image
from blog.models import Note
from tests.background import run_queued_tasks

LINK = re.compile(r"""(?:href|src)\s*=\s*["']([^"'#]+)""")
XML_LINK = re.compile(r"<(?:loc|link|id)>\s*([^<\s]+)\s*</")
MAX_PAGES = 3000
NOTE = "flashattention-tiling"  # a demo note in a series, with a translation and terms
SEEDS = ["/", "/en/", "/sitemap.xml", "/search/?q=GPU", "/en/search/?q=GPU", "/robots.txt"]


class ImageWork(AssertionError):
    """Pillow was asked to decode, encode or draw while a request was answered."""


def photo_jpeg(seed, size=(1600, 1200)):
    """A small photo-like JPEG: wide enough for width variants."""
    image = Image.linear_gradient("L").resize(size).convert("RGB")
    ImageDraw.Draw(image).ellipse((100 + seed * 50, 100, 700, 600), fill=(200, 90, 40))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def site_with_images():
    """The demo blog, a note with two uploaded photos and a cover, and what the background
    runner makes for them: variants, re-rendered pages, every share card."""
    call_command("load_demo", stdout=io.StringIO())
    urls = [
        store_image(SimpleUploadedFile(f"p{n}.jpg", photo_jpeg(n), "image/jpeg")).url
        for n in range(2)
    ]
    note = Note.objects.get(slug=NOTE)
    note.body += "".join(f"\n\n![照片 {n}]({url})\n" for n, url in enumerate(urls))
    note.cover = SimpleUploadedFile("cover.jpg", photo_jpeg(3), "image/jpeg")
    note.cover_alt = "封面"
    note.save()
    run_queued_tasks()
    note.refresh_from_db()
    # What readers are to be sent: pictures of the variants, the cover's, and a card.
    assert note.body_html.count("<picture>") == 2 and "<picture>" in note.cover_html
    assert note.card and default_storage.exists(note.card)
    assert not Note.objects.published().filter(card="").exists()
    return note


def same_site_path(link, base):
    """The path and query of ``link`` (found on the page at ``base``) if a reader of the
    public site could follow it, else None."""
    url = urljoin(base, link.replace("&amp;", "&"))
    parts = urlsplit(url)
    site = urlsplit(settings.SITE_URL)
    if parts.scheme not in ("http", "https", "") or parts.netloc not in (
        "",
        site.netloc,
        "testserver",
    ):
        return None
    path = parts.path or "/"
    if path.startswith(("/static/", "/media/", f"/{settings.BIJI_ADMIN_PATH}")):
        return None
    return path + (f"?{parts.query}" if parts.query else "")


def crawl(client, seeds, calls=()):
    """Every page reachable from ``seeds``: ``{path: status}``. Entries added to ``calls``
    (see :func:`image_traps`) while a page is answered are given its path."""
    seen, queue = {}, list(seeds)
    while queue and len(seen) < MAX_PAGES:
        path = queue.pop(0)
        if path in seen:
            continue
        response = client.get(path)
        seen[path] = response.status_code
        for call in calls:
            call.setdefault("path", path)
        if response.status_code in (301, 302, 307, 308):
            queue.append(same_site_path(response["Location"], "http://testserver" + path))
            continue
        kind = response.get("Content-Type", "")
        if response.status_code != 200 or not ("html" in kind or "xml" in kind):
            continue
        text = b"".join(response.streaming_content if response.streaming else [response.content])
        text = text.decode("utf-8", "replace")
        for link in LINK.findall(text) + XML_LINK.findall(text):
            found = same_site_path(link, "http://testserver" + path)
            if found and found not in seen:
                queue.append(found)
    queue = [path for path in queue if path and path not in seen]
    assert not queue, f"more than {MAX_PAGES} pages: {queue[:5]}…"
    return seen


@pytest.fixture
def image_traps(monkeypatch):
    """Pillow's ways in, each replaced by a trap: ``[{"what", "stack"}]`` of the calls."""
    calls = []

    def trap(what):
        def trapped(*args, **kwargs):
            calls.append({"what": what, "stack": "".join(traceback.format_stack(limit=12))})
            raise ImageWork(f"{what} called while answering a request")

        return trapped

    monkeypatch.setattr(Image, "open", trap("Image.open"))
    monkeypatch.setattr(Image, "new", trap("Image.new"))
    monkeypatch.setattr(Image, "_getdecoder", trap("a decoder (Image._getdecoder)"))
    monkeypatch.setattr(Image, "_getencoder", trap("an encoder (Image._getencoder)"))
    monkeypatch.setattr(Image.Image, "save", trap("Image.save"))
    monkeypatch.setattr(ImageDraw, "Draw", trap("ImageDraw.Draw"))
    monkeypatch.setattr(ImageFile.Parser, "feed", trap("ImageFile.Parser (image dimensions)"))
    return calls


# Every kind of public page and feed (URL names), which the crawl must have reached.
KINDS = {
    "home", "note-detail", "note-parallel", "tag-list", "tag-detail", "series-list",
    "series-detail", "archive", "archive-year", "archive-month", "page-detail", "search",
    "glossary", "glossary-term", "all-rss", "all-atom", "tag-rss", "tag-atom", "series-rss",
    "series-atom", "language-rss", "language-atom", "sitemap", "sitemap-section",
}  # fmt: skip


def kinds(paths):
    """The URL names of ``paths``, each resolved in its own interface language."""
    names = set()
    for path in paths:
        path = urlsplit(path).path
        with translation.override(translation.get_language_from_path(path) or "zh-hans"):
            names.add(resolve(path).url_name)
    return names


@pytest.mark.slow  # ~20 s: the demo's cards and the photos' variants are made for real
@pytest.mark.django_db(transaction=True)
def test_no_public_page_decodes_encodes_or_draws_an_image(client, request):
    note = site_with_images()
    calls = request.getfixturevalue("image_traps")  # set now: the site above needed Pillow
    pages = crawl(client, SEEDS, calls)
    assert not calls, "\n".join(
        [f"{call['path']}: {call['what']}" for call in calls] + ["the first:", calls[0]["stack"]]
    )
    broken = {path: status for path, status in pages.items() if status >= 400}
    assert not broken, broken
    # What the crawl reached: every kind of page in both interfaces, the note with images.
    assert KINDS <= kinds(pages), KINDS - kinds(pages)
    assert {f"/notes/{NOTE}/", f"/en/notes/{NOTE}/"} <= set(pages)
    # ... and the pages named the files made in the background: variants, the card.
    shown = client.get(f"/notes/{NOTE}/").content.decode()
    assert "/media/variants/" in shown and f"/media/{note.card}" in shown
    assert sum(path.startswith("/en/") for path in pages) > 20
