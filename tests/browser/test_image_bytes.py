"""A note with five 4000 × 3000 photos (~3 MB each as uploaded, 14 MB together) costs a phone
and a laptop a small fraction of that once its variants exist: the browser picks a modern
format at a width that fits the screen, nothing shifts while the images load, and only the
first image is fetched before it comes near the screen.

The page is read as a reader reads it: from the top, a screen at a time to the end, so every
lazy image is fetched (:func:`benchmarks.images.visit`, which ``make bench-images`` also uses
for the before/after table of docs/performance.md). Bytes are on the wire, headers included,
in a fresh browser context (no cache).
"""

import pytest

from benchmarks.images import picked, visit
from benchmarks.photos import PHOTOS

pytest_plugins = ["tests.browser.photos"]  # photo_note, photo_media
pytestmark = pytest.mark.browser

MODERN = {"image/avif", "image/webp"}
# (CSS width, CSS height, device pixel ratio) → the most image bytes the page may cost: a
# third over what it cost when measured (2026-12-04, docs/performance.md: 123 KB, 887 KB and
# 228 KB of AVIF), and each far below the originals' 14 MB.
CEILING = {
    (390, 844, 1): 165 * 1024,
    (390, 844, 3): 1_180 * 1024,
    (1280, 800, 1): 305 * 1024,
}
# The variant each screen needs: the note column (44rem, or the viewport less 2rem) times
# the pixel ratio, rounded up to the next width made (480, 720, 960, 1600).
EXPECTED_WIDTH = {(390, 844, 1): 480, (390, 844, 3): 1600, (1280, 800, 1): 720}


@pytest.mark.parametrize("viewport", list(CEILING), ids=[f"{w}px-dpr{r}" for w, _h, r in CEILING])
def test_a_reader_downloads_a_fraction_of_the_photos(open_page, photo_media, viewport):
    width, height, ratio = viewport
    ceiling = CEILING[viewport]
    assert ceiling < photo_media.original_bytes / 10  # far below "before"
    page = open_page(viewport={"width": width, "height": height}, device_scale_factor=ratio)
    seen = visit(page, photo_media.get_absolute_url())
    assert not page.problems, f"problems:\n{page.problems}"

    photos = [image for image in seen.images if image["src"].startswith("/media/")]
    assert len(photos) == PHOTOS, seen.images
    assert seen.image_bytes <= ceiling, (
        f"{seen.image_bytes:,} B of images > {ceiling:,} B:\n{seen.listing()}"
    )
    # One file per photo, each in a modern format, at the width the screen needs.
    fetched = [kind for url, kind, _size in seen.fetched if "/media/" in url]
    assert len(fetched) == PHOTOS, seen.listing()
    assert set(fetched) <= MODERN, seen.listing()
    wanted = EXPECTED_WIDTH[viewport]
    assert {picked(image) for image in photos} <= {f"{wanted} px avif", f"{wanted} px webp"}, [
        image["current"] for image in photos
    ]
    # Room kept while loading, and only the first image loaded before it is needed.
    for image in photos:
        assert image["inPicture"], image
        assert image["width"] and image["height"], f"no width/height: {image}"
    assert [image["loading"] for image in photos] == [None] + ["lazy"] * (PHOTOS - 1)
    assert [image["decoding"] for image in photos] == [None] + ["async"] * (PHOTOS - 1)
    assert seen.layout_shift == 0, f"layout shifts while loading and scrolling: {seen.shifts}"
