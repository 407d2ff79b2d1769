"""A reader finds their way by links alone: home → note → tag → series → archive → month,
and through a series part by part."""

import re

import pytest
from playwright.sync_api import expect

from blog.models import Note
from tests.browser.site import (
    FLASH,
    FLASH_TITLE,
    GPU_SERIES,
    GPU_SERIES_PARTS,
    SCHEDULED,
    expect_path,
    visit,
)

pytestmark = pytest.mark.browser


PART_OF = re.compile(r"第\s*(\d+)\s*部分[，,]\s*共\s*(\d+)\s*部分|Part (\d+) of (\d+)")


def series_position(page):
    """(number, total) from the series box's "Part N of M" (either interface language)."""
    text = page.locator(".series-box").inner_text()
    match = PART_OF.search(text)
    assert match, f"no 'Part N of M' in the series box: {text!r}"
    number, total = (g for g in match.groups() if g is not None)
    return int(number), int(total)


def test_home_to_note_to_tag_series_archive_and_month(page):
    visit(page, "/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")

    # Home → the note, through its "阅读笔记" link.
    item = page.locator("article").filter(has=page.get_by_role("heading", name=FLASH_TITLE))
    expect(item).to_have_count(1)
    read = item.get_by_role("link", name="阅读笔记")
    expect(read).to_have_count(1)
    read.click()
    expect_path(page, FLASH)

    # The note: title, body, visible MathML, a highlighted code block.
    expect(page.get_by_role("heading", level=1)).to_have_text(FLASH_TITLE)
    prose = page.locator(".prose")
    expect(prose).to_contain_text("online softmax")
    math = prose.locator("math").first
    expect(math).to_be_visible()
    box = math.bounding_box()
    assert box and box["width"] > 0 and box["height"] > 0, "MathML is not laid out"
    assert prose.locator("math[display='block']").count() >= 1, "no display math"
    code = prose.locator("pre").filter(has_text="flash_attention_ref").first
    expect(code).to_be_visible()
    colours = code.evaluate(
        """pre => {
          const base = getComputedStyle(pre).color;
          return [...pre.querySelectorAll("span[class]")]
            .map(span => getComputedStyle(span).color).filter(c => c !== base).length;
        }"""
    )
    assert colours > 0, "the code block has no highlighted tokens (Pygments classes or CSS missing)"

    # Note → one of its tags → the tag page lists the note.
    page.locator(".note-header").get_by_role("link", name=re.compile("注意力")).click()
    expect_path(page, "/tags/attention/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("注意力")
    listed = page.locator("main").get_by_role("link", name=FLASH_TITLE)
    expect(listed).to_have_count(1)

    # Tag page → back to the note by its link → its series box → the series page.
    listed.click()
    expect_path(page, FLASH)
    page.locator(".series-box").get_by_role("link", name=re.compile("GPU 笔记")).first.click()
    expect_path(page, GPU_SERIES)
    expect(page.get_by_role("heading", level=1)).to_contain_text("GPU 笔记")

    # The series page lists the published parts in order, and not the scheduled one.
    hrefs = page.locator("main article h2 a").evaluate_all(
        "links => links.map(a => new URL(a.href).pathname)"
    )
    assert hrefs == GPU_SERIES_PARTS, f"series parts out of order: {hrefs}"
    assert SCHEDULED not in hrefs

    # Navigation → archive → the month of the note → it is listed there.
    page.locator("header").get_by_role("link", name="归档", exact=True).click()
    expect_path(page, "/archive/")
    month = page.locator('main a[href$="/archive/2025/8/"], main a[href$="/archive/2025/08/"]')
    expect(month.first).to_be_visible()
    month.first.click()
    expect(page).to_have_url(re.compile(r"/archive/2025/0?8/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("2025")
    expect(page.locator("main").get_by_role("link", name=FLASH_TITLE)).to_have_count(1)

    # Every note published in that month is there (the month page is not just any list).
    notes = Note.objects.published().filter(published_at__year=2025, published_at__month=8)
    for note in notes:
        expect(page.locator("main").get_by_role("link", name=note.title)).to_have_count(1)
    assert not page.problems, f"problems while browsing:\n{page.problems}"


def test_series_parts_previous_and_next(page):
    visit(page, FLASH)
    assert series_position(page) == (2, 4)
    nav = page.locator(".series-box")

    nav.locator('a[rel="next"]').click()
    expect_path(page, GPU_SERIES_PARTS[2])
    assert series_position(page) == (3, 4)

    nav.locator('a[rel="next"]').click()
    expect_path(page, GPU_SERIES_PARTS[3])
    assert series_position(page) == (4, 4)
    # The last published part: the scheduled fifth part is neither counted nor linked.
    expect(nav.locator('a[rel="next"]')).to_have_count(0)
    expect(page.locator(f'a[href$="{SCHEDULED}"]')).to_have_count(0)

    for expected in (GPU_SERIES_PARTS[2], GPU_SERIES_PARTS[1], GPU_SERIES_PARTS[0]):
        nav.locator('a[rel="prev"]').click()
        expect_path(page, expected)
    assert series_position(page) == (1, 4)
    expect(nav.locator('a[rel="prev"]')).to_have_count(0)

    # The kicker above the title says the same in words.
    expect(page.locator("main")).to_contain_text("第 1 部分，共 4 部分")
    assert not page.problems, f"problems while browsing:\n{page.problems}"
