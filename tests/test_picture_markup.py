"""A stored image shows as a <picture> a browser picks the right size of, with its width and
height (nothing shifts while it loads), lazy below the first image; feeds get one plain image;
the author's own <picture>, <source>, srcset and sizes never pass the sanitizer."""

import io
import re
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from blog.images.uploads import store_image
from blog.images.variants import make_variants
from blog.models import ImageFile, Note
from blog.rendering import render_markdown
from blog.rendering.feed_html import feed_html
from blog.rendering.pictures import (
    SIZES,
    KnownImage,
    Variant,
    with_pictures,
    without_pictures,
)
from tests.factories import make_note, make_page

MEDIA = "/media/"


def stored_image(width=1200, height=800, variants=True):
    """An editor upload, with its variants made (as the background runner would)."""
    image = Image.new("RGB", (width, height), (30, 90, 160))
    out = io.BytesIO()
    image.save(out, "JPEG")
    stored = store_image(SimpleUploadedFile("figure.jpg", out.getvalue(), "image/jpeg"))
    if variants:
        make_variants(ImageFile.objects.get(name=stored.name))
    return stored


def soup(html):
    return BeautifulSoup(html, "html.parser")


def prose(page_html):
    return soup(page_html).select_one(".prose")


# --- the markup, from the table's data (no database) -----------------------------------------

PHOTO = KnownImage(
    2000,
    1500,
    (
        Variant("webp", 960, "/media/variants/a.jpg-960.webp"),
        Variant("avif", 480, "/media/variants/a.jpg-480.avif"),
        Variant("webp", 480, "/media/variants/a.jpg-480.webp"),
        Variant("avif", 960, "/media/variants/a.jpg-960.avif"),
    ),
)


def test_a_known_image_becomes_a_picture_avif_first_the_original_last():
    html = '<p><img src="/media/a.jpg" alt="GPU 的 SM" loading="lazy" decoding="async"></p>'
    picture = soup(with_pictures(html, {"a.jpg": PHOTO}, MEDIA)).picture
    avif, webp = picture.find_all("source")
    assert avif["type"] == "image/avif" and webp["type"] == "image/webp"
    assert avif["srcset"] == (
        "/media/variants/a.jpg-480.avif 480w, /media/variants/a.jpg-960.avif 960w, "
        "/media/a.jpg 2000w"
    )
    assert webp["srcset"].endswith("-960.webp 960w, /media/a.jpg 2000w")
    assert avif["sizes"] == webp["sizes"] == SIZES
    img = picture.img
    assert (img["src"], img["alt"], img["width"], img["height"]) == (
        "/media/a.jpg",
        "GPU 的 SM",
        "2000",
        "1500",
    )
    assert not img.has_attr("loading")  # the first image: it may be in view


def test_only_the_first_image_is_eager_and_unknown_images_stay_as_they_were():
    remote = '<img src="https://example.com/x.png" alt="" loading="lazy" decoding="async">'
    local = '<img src="/media/a.jpg" alt="" loading="lazy" decoding="async">'
    plain = '<img src="/media/small.png" alt="" loading="lazy" decoding="async">'
    images = {"a.jpg": PHOTO, "small.png": KnownImage(300, 200)}
    html = with_pictures(f"<p>{local}</p><p>{remote}</p><p>{local}{plain}</p>", images, MEDIA)
    imgs = soup(html).find_all("img")
    assert [img.get("loading") for img in imgs] == [None, "lazy", "lazy", "lazy"]
    assert [img.get("decoding") for img in imgs] == [None, "async", "async", "async"]
    assert remote in html  # not stored by biji: untouched
    assert str(imgs[3]) == (  # stored, no variants: its size, no <picture>
        '<img alt="" decoding="async" height="200" loading="lazy" src="/media/small.png" '
        'width="300"/>'
    )
    assert html.count("<picture>") == 2
    after_cover = with_pictures(f"<p>{local}</p>", images, MEDIA, eager_first=False)
    assert soup(after_cover).img["loading"] == "lazy"


def test_a_size_the_author_gave_is_kept_and_completed_at_the_images_ratio():
    html = '<img src="/media/a.jpg" alt="" width="500">'
    img = soup(with_pictures(html, {"a.jpg": PHOTO}, MEDIA)).img
    assert (img["width"], img["height"]) == ("500", "375")


def test_sizes_is_the_note_column_of_the_stylesheet():
    css = (Path(django_settings.BASE_DIR) / "static/css/site.css").read_text()
    measure = re.search(r"--measure:\s*([\d.]+)rem", css).group(1)
    wrap = re.search(r"\.wrap \{ max-width: calc\(var\(--measure\) \+ ([\d.]+)rem\)", css)
    padding = re.search(r"\.wrap \{[^}]*padding: 0 ([\d.]+)rem", css).group(1)
    assert float(wrap.group(1)) == 2 * float(padding)
    column, viewport = float(measure), float(measure) + 2 * float(padding)
    assert SIZES == (
        f"(min-width: {viewport:g}rem) {column:g}rem, calc(100vw - {2 * float(padding):g}rem)"
    )


def test_feeds_get_the_one_original_image_at_an_absolute_address():
    html = with_pictures('<p><img src="/media/a.jpg" alt="图"></p>', {"a.jpg": PHOTO}, MEDIA)
    entry = soup(feed_html(html, "https://blog.example/notes/x/"))
    assert entry.find("picture") is None and entry.find("source") is None
    assert [img["src"] for img in entry.find_all("img")] == ["https://blog.example/media/a.jpg"]
    assert "srcset" not in str(entry)


def test_without_pictures_leaves_text_that_only_looks_like_a_picture():
    html = '<p title="<picture>">a &lt;picture&gt; tag</p><p><img src="/x" alt="<source>"></p>'
    assert without_pictures(html) == html


# --- the sanitizer stays the gate ------------------------------------------------------------

AUTHOR_PICTURE = (
    '<picture><source type="image/avif" srcset="https://evil.example/x.avif 1x">'
    '<img src="/media/{name}" alt="x" srcset="https://evil.example/y.jpg 2x" sizes="1px">'
    "</picture>"
)


def test_the_authors_picture_source_srcset_and_sizes_are_stripped():
    html = render_markdown(AUTHOR_PICTURE.format(name="a.jpg")).html
    assert not re.search(r"<picture|<source|srcset|sizes|evil", html), html
    assert '<img src="/media/a.jpg" alt="x"' in html


@pytest.mark.django_db
def test_the_only_variants_a_page_names_are_the_ones_biji_made():
    stored = stored_image()
    note = make_note(body=AUTHOR_PICTURE.format(name=stored.name), slug="hostile")
    assert "evil" not in note.body_html
    body = soup(note.body_html)
    assert len(body.find_all("picture")) == 1
    for source in body.find_all("source"):
        for candidate in source["srcset"].split(", "):
            url = candidate.split()[0]
            assert url.startswith(("/media/variants/", stored.url)), url


# --- the note's page, its preview, pages, feeds ------------------------------------------------


@pytest.mark.django_db
def test_the_note_page_shows_sized_pictures_lazy_after_the_first(client):
    first, second = stored_image(1600, 900), stored_image(800, 1000)
    note = make_note(body=f"![一]({first.url})\n\n文字。\n\n![二]({second.url})\n", slug="two")
    body = prose(client.get(note.get_absolute_url()).content.decode())
    pictures = body.find_all("picture")
    assert len(pictures) == 2
    imgs = [picture.img for picture in pictures]
    assert [(img["width"], img["height"]) for img in imgs] == [("1600", "900"), ("800", "1000")]
    assert [img.get("loading") for img in imgs] == [None, "lazy"]
    assert pictures[1].source["srcset"] == (
        f"/media/variants/{second.name}-480.avif 480w, "
        f"/media/variants/{second.name}-720.avif 720w, {second.url} 800w"
    )


@pytest.mark.django_db
def test_a_variant_lost_before_a_render_is_left_out_never_named(client, settings):
    stored = stored_image(1200, 800)
    row = ImageFile.objects.get(name=stored.name)
    (lost,) = [v["name"] for v in row.variants if (v["format"], v["width"]) == ("avif", 960)]
    (Path(settings.MEDIA_ROOT) / lost).unlink()
    note = make_note(body=f"![图]({stored.url})", slug="lost")
    page = client.get(note.get_absolute_url()).content.decode()
    assert lost not in page
    avif = prose(page).find("source", type="image/avif")
    assert avif["srcset"] == (
        f"/media/variants/{stored.name}-480.avif 480w, "
        f"/media/variants/{stored.name}-720.avif 720w, {stored.url} 1200w"
    )
    assert f"{stored.name}-960.webp 960w" in page  # the others are still offered


@pytest.mark.django_db
def test_an_image_without_variants_yet_has_its_size(client):
    stored = stored_image(1200, 800, variants=False)
    note = make_note(body=f"![图]({stored.url})", slug="waiting")
    img = prose(client.get(note.get_absolute_url()).content.decode()).img
    assert (img["src"], img["width"], img["height"]) == (stored.url, "1200", "800")
    assert "<picture>" not in note.body_html


@pytest.mark.django_db
def test_a_note_with_a_cover_has_its_figure_first_and_every_body_image_lazy(client):
    cover, figure = stored_image(1800, 1200), stored_image(900, 600)
    note = make_note(body=f"![图]({figure.url})", slug="covered", cover=cover.name,
                     cover_alt="封面：一块 GPU")  # fmt: skip
    page = soup(client.get(note.get_absolute_url()).content.decode())
    cover_img = page.select_one("figure.cover picture img")
    assert cover_img["alt"] == "封面：一块 GPU" and cover_img["width"] == "1800"
    assert not cover_img.has_attr("loading")
    assert page.select_one(".prose img")["loading"] == "lazy"


@pytest.mark.django_db
def test_an_old_row_without_cover_html_shows_the_plain_cover(client):
    cover = stored_image(variants=False)
    note = make_note(slug="old-row", cover=cover.name, cover_alt="旧")
    Note.objects.filter(pk=note.pk).update(cover_html="")
    page = soup(client.get(note.get_absolute_url()).content.decode())
    assert page.select_one("figure.cover img")["src"] == cover.url
    assert page.select_one("figure.cover picture") is None


@pytest.mark.django_db
def test_the_editor_preview_shows_the_picture_as_the_page_will(staff_client):
    stored = stored_image()
    preview = staff_client.post(
        reverse("admin:blog_note_editor_preview"),
        {"content": f"![图]({stored.url})", "language": "zh-hans"},
    ).content.decode()
    note = make_note(body=f"![图]({stored.url})", slug="same")
    assert preview == note.body_html
    assert "<picture>" in preview


@pytest.mark.django_db
def test_pages_show_pictures_too(client):
    stored = stored_image()
    page = make_page(title="About", slug="about", body=f"![我]({stored.url})")
    assert "<picture>" in prose(client.get(page.get_absolute_url()).content.decode()).decode()


@pytest.mark.django_db
def test_the_feed_entry_has_one_absolute_image_and_no_picture(client):
    stored = stored_image()
    note = make_note(body=f"![图]({stored.url})", slug="fed")
    assert "<picture>" in note.body_html
    parsed = feedparser.parse(client.get("/feed/").content)
    entry = next(e for e in parsed.entries if e.link.endswith(note.get_absolute_url()))
    content = soup(entry.content[0].value)
    assert content.find("picture") is None and content.find("source") is None
    (img,) = content.find_all("img")
    assert img["src"].startswith("http") and img["src"].endswith(stored.url)
    assert img["width"] == "1200"
