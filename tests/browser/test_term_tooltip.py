"""Glossary terms in a note, as a reader meets them (static/js/site.js and the ``.term`` rules
of site.css): the definition in a tooltip that opens from the keyboard, on hover and on a
first tap, closes with Escape and with a tap elsewhere, one at a time; the link leads to the
glossary (on touch, at the second tap); nothing moves when a tip opens; a tip stays inside a
390 px phone's viewport; axe finds nothing with a tip open, in both themes and interfaces.
"""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from playwright.sync_api import expect

from blog.models import Language, Note, Status, Term
from tests.browser.site import FLASH, in_language, luminance, path_of, visit
from tests.browser.test_accessibility import NO_TRANSITIONS, WCAG_TAGS, describe, run_axe

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LANGUAGES = pytest.mark.parametrize("language", ["zh-hans", "en"], ids=["zh", "en"])

# Terms of the module's own (the demo's glossary is the demo's to change), in no demo note: a
# new term re-renders the notes that hold its forms, and the demo's must stay as they are.
TERMS = [
    {
        "slug": "tooltip-test-bank-conflict",
        "english": "bank conflict",
        "chinese": "存储体冲突",
        "definition_zh": "同一个 warp 的几个线程在同一周期访问共享内存同一个 bank 的不同地址，"
        "硬件只能把这些访问拆成几次依次完成。",
        "definition_en": "Threads of a warp reading different addresses in the same bank of "
        "shared memory in one cycle: the hardware serialises the accesses.",
    },
    {
        "slug": "tooltip-test-predication",
        "english": "predication",
        "chinese": "谓词执行",
        "definition_zh": "两条路径的指令都发射，只有谓词为真的线程写回结果：短分支不必跳转。",
        "definition_en": "Both paths of a branch are issued and only the threads whose "
        "predicate is true write their results: short branches need no jump.",
    },
    {
        "slug": "tooltip-test-cooperative-groups",
        "english": "cooperative groups",
        "chinese": "协作组",
        "definition_zh": "CUDA 的线程分组接口：从几个线程到整个 grid，按组同步，"
        "例如 `this_grid().sync()`。",
        "definition_en": "CUDA's interface for groups of threads, from a few threads to the "
        "whole grid, synchronised as a group, e.g. `this_grid().sync()`.",
    },
]
NOTES = {
    Language.CHINESE: {
        "slug": "tooltip-test-zh",
        "title": "共享内存、分支与同步的几个细节",
        "body": "一个 block 里的线程读写共享内存时，最常见的性能问题是存储体冲突：两个线程访问"
        "同一个 bank 的不同地址，访问就被拆开串行完成。给二维数组的每一行多填一个元素，"
        "通常就能避开它。\n\n"
        "## 分支\n\n"
        "编译器遇到很短的 if 分支时，常常不生成跳转，而是改用谓词执行：两条路径都发射，"
        "只有条件成立的线程写回结果。\n\n"
        "## 同步\n\n"
        "需要整个 grid 一起等待的时候，可以用协作组提供的 grid 级同步，代价是所有 block "
        "必须能同时驻留在 GPU 上。存储体冲突在这里也会出现。\n",
    },
    Language.ENGLISH: {
        "slug": "tooltip-test-en",
        "title": "Shared memory, branches and synchronisation in detail",
        "body": "When the threads of a block read and write shared memory, the most common "
        "slowdown is a bank conflict: two threads reach different addresses in one bank "
        "and the accesses are split up. One extra element per row usually avoids it.\n\n"
        "## Branches\n\n"
        "For a very short if, the compiler often emits no jump and uses predication instead: "
        "both paths are issued, and only the threads whose condition holds write back.\n\n"
        "## Synchronisation\n\n"
        "When the whole grid must wait for itself, the grid-wide sync of cooperative groups "
        "does it, provided every block fits on the GPU at once.\n",
    },
}


@pytest.fixture(scope="module")
def notes(demo):
    """The module's terms and a published note in each language that uses them, rendered
    with the terms marked (blog.models.term_matching); deleted after the module, with the
    re-render tasks their changes queued (no worker runs them here)."""
    since, published = timezone.now(), timezone.now() - timedelta(days=1)
    terms, made = [], {}
    try:
        terms += [Term.objects.create(**fields) for fields in TERMS]
        for language, fields in NOTES.items():
            made[language] = Note.objects.create(
                language=language, status=Status.PUBLISHED, published_at=published, **fields
            )
        yield {language: note.get_absolute_url() for language, note in made.items()}
    finally:
        Note.objects.filter(pk__in=[note.pk for note in made.values()]).delete()
        Term.objects.filter(pk__in=[term.pk for term in terms]).delete()
        DBTaskResult.objects.filter(
            task_path__endswith=".rerender_for_terms", enqueued_at__gte=since
        ).delete()


@pytest.fixture
def note(notes, language):
    """The path of the note in ``language``, in the interface of that language."""
    return in_language(notes[language], language)


@pytest.fixture
def language():
    """The interface and the note's language (parametrised by the tests that try both)."""
    return Language.CHINESE


def open_note(page, path):
    """The note at ``path``; returns its terms with a tooltip: the module's three, in order
    (one a section), and every one (the demo's glossary may mark more)."""
    visit(page, path)
    every = page.locator(".prose .term:has(> .term-tip)")
    mine = [
        every.filter(has=page.locator(f".term-link[href$='#{fields['slug']}']")).first
        for fields in TERMS
    ]
    for term in mine:
        expect(term).to_have_count(1)
    expect(page.locator(":root.term-tips")).to_have_count(1)  # the script ran
    return mine, every


def tip_of(term):
    return term.locator(".term-tip")


def link_of(term):
    return term.locator(".term-link")


def shown_tips(page):
    return page.locator(".prose .term-tip:visible")


def tab_to(page, link, limit=400):
    """Press Tab until ``link`` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if link.evaluate("el => el === document.activeElement"):
            return
    pytest.fail(f"{link} is not in the tab order")


def expect_the_glossary_entry(page, href):
    """The glossary page is there, with the term's entry at the link's anchor."""
    slug = href.partition("#")[2]
    expect(page.locator(f"[id='{slug}']")).to_have_count(1)
    assert not page.problems, f"problems:\n{page.problems}"


def text_of(locator):
    return " ".join(locator.text_content().split())


# --- keyboard ---------------------------------------------------------------------------------


@LANGUAGES
def test_the_keyboard_opens_a_tip_and_escape_closes_it_where_the_focus_is(page, note, language):
    (term, other, _), _ = open_note(page, note)
    link, tip = link_of(term), tip_of(term)
    expect(tip).to_be_hidden()
    # Hidden, the tip is still what a screen reader reads after the link's name.
    expect(link).to_have_accessible_description(text_of(tip))

    page.mouse.move(0, 0)
    tab_to(page, link)
    expect(tip).to_be_visible()
    expect(shown_tips(page)).to_have_count(1)
    expect(link).to_have_accessible_description(text_of(tip))

    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    expect(link).to_be_focused()
    assert path_of(page) == note

    # The next term opens its own tip; coming back opens this one again.
    page.keyboard.press("Shift+Tab")
    tab_to(page, link)
    expect(tip).to_be_visible()
    next_link = link_of(other)
    tab_to(page, next_link)
    expect(tip).to_be_hidden()
    expect(tip_of(other)).to_be_visible()
    expect(shown_tips(page)).to_have_count(1)

    # Enter follows the link to the term's place in the glossary.
    href = next_link.get_attribute("href")
    assert re.fullmatch(re.escape(in_language("/glossary/", language)) + r"#[\w-]+", href)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert path_of(page) == href
    expect_the_glossary_entry(page, href)


# --- pointer ----------------------------------------------------------------------------------


def test_hover_opens_a_tip_the_pointer_can_move_onto(page, note):
    (term, other, _), _ = open_note(page, note)
    tip = tip_of(term)
    link_of(term).hover()
    expect(tip).to_be_visible()

    # From the link down across the gap onto the tip, in small steps: it stays.
    start, box = link_of(term).bounding_box(), tip.bounding_box()
    page.mouse.move(start["x"] + 2, start["y"] + start["height"] / 2)
    page.mouse.move(box["x"] + 4, box["y"] + box["height"] / 2, steps=12)
    expect(tip).to_be_visible()
    page.mouse.move(box["x"] + box["width"] - 4, box["y"] + box["height"] - 4, steps=6)
    expect(tip).to_be_visible()

    # Escape closes it though the pointer is still on the term; moving along the term keeps
    # it closed, coming back to it opens it again.
    page.mouse.move(start["x"] + 2, start["y"] + start["height"] / 2, steps=12)
    expect(tip).to_be_visible()
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    page.mouse.move(start["x"] + start["width"] - 2, start["y"] + start["height"] / 2, steps=4)
    expect(tip).to_be_hidden()
    page.mouse.move(start["x"] + 2, start["y"] - 40, steps=4)
    link_of(term).hover()
    expect(tip).to_be_visible()

    # Pointing at another term opens that one, alone.
    link_of(other).hover()
    expect(tip_of(other)).to_be_visible()
    expect(shown_tips(page)).to_have_count(1)
    page.mouse.move(0, 0)
    expect(shown_tips(page)).to_have_count(0)

    # One term focused from the keyboard, another pointed at: one tip, the one pointed at.
    page.mouse.move(0, 0)
    tab_to(page, link_of(other))
    expect(tip_of(other)).to_be_visible()
    link_of(term).hover()
    expect(tip).to_be_visible()
    expect(shown_tips(page)).to_have_count(1)


# --- touch ------------------------------------------------------------------------------------


def phone_page(open_page, scheme="light"):
    return open_page(
        color_scheme=scheme, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )


@LANGUAGES
def test_the_first_tap_opens_the_tip_and_the_second_follows_the_link(open_page, note):
    page = phone_page(open_page)
    (term, other, _), _ = open_note(page, note)
    link, tip = link_of(term), tip_of(term)
    here = path_of(page)

    link.tap()
    expect(tip).to_be_visible()
    assert path_of(page) == here

    # A tap elsewhere closes it.
    page.locator(".note-meta").tap()
    expect(tip).to_be_hidden()

    # A tap on another term opens that one alone.
    link.tap()
    link_of(other).tap()
    expect(tip_of(other)).to_be_visible()
    expect(tip).to_be_hidden()
    assert path_of(page) == here

    # The second tap on the open term follows its link to the glossary.
    href = link_of(other).get_attribute("href")
    with page.expect_navigation():
        link_of(other).tap()
    assert path_of(page) == href
    expect_the_glossary_entry(page, href)


# --- no layout shift, in the viewport ---------------------------------------------------------

WATCH_SHIFTS = """() => {
  window.__shift = 0;
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) window.__shift += entry.value;
  }).observe({type: "layout-shift", buffered: true});
}"""
# Where the note's blocks and terms are in the page (not the viewport: hovering scrolls).
BOXES = """() => [...document.querySelectorAll(".prose > *, .prose .term-link")].map(el => {
  const box = el.getBoundingClientRect();
  return [box.x + scrollX, box.y + scrollY, box.width, box.height].map(Math.round).join(",");
})"""


def test_opening_a_tip_moves_nothing(page, note):
    _, terms = open_note(page, note)
    page.evaluate(WATCH_SHIFTS)
    page.wait_for_timeout(100)
    before_shift = page.evaluate("window.__shift")
    before = page.evaluate(BOXES)
    page.mouse.move(0, 0)
    for index in range(terms.count()):
        link = link_of(terms.nth(index))
        link.scroll_into_view_if_needed()
        link.hover()
        expect(tip_of(terms.nth(index))).to_be_visible()
        assert page.evaluate(BOXES) == before, f"opening term {index + 1}'s tip moved the text"
    page.mouse.move(0, 0)
    expect(shown_tips(page)).to_have_count(0)
    page.wait_for_timeout(100)
    assert page.evaluate("window.__shift") == before_shift == 0


INSIDE = """tip => {
  const box = tip.getBoundingClientRect(), root = document.documentElement;
  return {left: box.left, right: box.right, top: box.top, bottom: box.bottom,
          width: root.clientWidth, height: root.clientHeight,
          scrolls: root.scrollWidth > root.clientWidth};
}"""
# Scroll the page so that the term is a third down the viewport, or on its last line.
PUT_AT = """(link, where) => {
  const box = link.getBoundingClientRect();
  const to = where === "bottom" ? innerHeight - 8 - box.bottom : innerHeight / 3 - box.top;
  window.scrollBy(0, -to);
}"""


@LANGUAGES
def test_every_tip_stays_inside_a_phone_s_viewport(open_page, note):
    """Below its term, moved left where the term is too far right for it; above the term on
    the viewport's last line."""
    page = phone_page(open_page)
    _, terms = open_note(page, note)
    moved_left, placed = 0, {"below": 0, "above": 0}
    for index in range(terms.count()):
        term = terms.nth(index)
        link, tip = link_of(term), tip_of(term)
        for where in ("middle", "bottom"):
            link.evaluate(PUT_AT, where)
            link.tap()
            expect(tip).to_be_visible()
            box, anchor = tip.evaluate(INSIDE), link.bounding_box()
            what = f"term {index + 1} at the {where}: {box}"
            assert box["left"] >= 0 and box["right"] <= box["width"], what
            assert box["top"] >= 0 and box["bottom"] <= box["height"], what
            assert not box["scrolls"], "the page scrolls sideways with a tip open"
            room = box["height"] - anchor["y"] - anchor["height"]  # below the term
            if room > box["bottom"] - box["top"] + 16:  # the tip fits below
                assert box["top"] >= anchor["y"] + anchor["height"], f"not below: {what}"
                placed["below"] += 1
            elif room < 16:  # the page could scroll the term down to the last line
                assert box["bottom"] <= anchor["y"], f"not above its term: {what}"
                placed["above"] += 1
            moved_left += anchor["x"] > box["left"] + 1
            page.locator(".note-header h1").tap()
            expect(tip).to_be_hidden()
    # Or the test proves nothing.
    assert moved_left, "no tip had to be moved left to fit"
    assert placed["below"] and placed["above"], f"tips placed: {placed}"


# --- accessibility ----------------------------------------------------------------------------


# Every pair of note, theme and language once (four runs, not eight): a violation comes from a
# theme's colours, a language's markup or a note's terms, or from two of them together.
@pytest.mark.parametrize(
    "which, scheme, language",
    [
        ("module's note", "light", "zh-hans"),
        ("module's note", "dark", "en"),
        ("demo note", "light", "en"),
        ("demo note", "dark", "zh-hans"),
    ],
)
def test_axe_finds_nothing_with_a_tip_open(open_page, axe_source, notes, language, scheme, which):
    """The module's note in its language's interface, and the demo's FlashAttention note (its
    terms and definitions are the demo glossary's) in either interface, with the first tip
    opened from the keyboard."""
    page = open_page(bypass_csp=True, color_scheme=scheme, reduced_motion="reduce")
    if which == "demo note":
        visit(page, in_language(FLASH, language))
        term = page.locator(".prose .term:has(> .term-tip)").first
        expect(term, "the demo note has no term (blog/ops/demo/glossary.yaml)").to_be_attached()
    else:
        (term, *_), _ = open_note(page, in_language(notes[language], language))
    page.add_style_tag(content=NO_TRANSITIONS)
    page.mouse.move(0, 0)
    tab_to(page, link_of(term))
    tip = tip_of(term)
    expect(tip).to_be_visible()
    # What axe does not check: the tip takes the theme's colours.
    background = tip.evaluate("el => getComputedStyle(el).backgroundColor")
    assert (luminance(background) < 0.2) == (scheme == "dark"), f"{background} in {scheme}"
    violations = run_axe(page, axe_source, WCAG_TAGS)
    assert not violations, "\n".join(describe(v, f"{language}/{scheme}") for v in violations)
    expect(tip).to_be_visible()  # axe looked at it open


# --- without the script, in print -------------------------------------------------------------


def test_without_javascript_hover_and_focus_show_the_tip_and_the_link_leads_on(open_page, note):
    page = open_page(color_scheme="light", java_script_enabled=False)
    visit(page, note)
    term = page.locator(".prose .term:has(> .term-tip)").first
    link, tip = link_of(term), tip_of(term)
    expect(tip).to_be_hidden()
    link.hover()
    expect(tip).to_be_visible()
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()
    tab_to(page, link)
    expect(tip).to_be_visible()
    href = link.get_attribute("href")
    link.click()
    expect(page).to_have_url(re.compile(re.escape(href) + "$"))


def test_tips_are_not_printed(page, note):
    (term, *_), _ = open_note(page, note)
    page.mouse.move(0, 0)
    tab_to(page, link_of(term))
    expect(tip_of(term)).to_be_visible()
    page.emulate_media(media="print")
    expect(shown_tips(page)).to_have_count(0)
