"""The lists' language rule in a real browser, in both interface languages and both themes:
on the home page, a tag page, a series page and the archive, a translated pair is one entry,
in the interface's language, and a note with no version in that language keeps its own and
carries a marker ("EN" / "中文") that is visible, legible (contrast ≥ 4.5:1 in the theme),
in the note's language for the eye and named in the interface's language for a screen
reader, and that stays inside its list item on a 390 px phone.

What each list must show is worked out from the database (the demo blog, blog/ops/demo/), by the
rule restated here, not by the queryset under test (``NoteQuerySet.in_interface``): a demo
edit changes the expectations, never silently the coverage. The tag and series pages are
the ones that hold a translated pair. Dark pages come from ``prefers-color-scheme: dark``.
"""

import re
from dataclasses import dataclass

import pytest
from django.urls import reverse
from django.utils import translation
from playwright.sync_api import expect

from blog.models import Note, SiteSettings
from tests.browser.site import (
    background_behind,
    contrast_ratio,
    effective_background,
    in_language,
    luminance,
    visit,
)

pytestmark = pytest.mark.browser

PHONE_WIDTH = 390
# What the marker shows (in the note's language) and what a screen reader hears instead (in the
# interface's language), by interface and note language.
SHOWN = {"en": "EN", "zh-hans": "中文"}
SPOKEN = {"zh-hans": {"en": "英文"}, "en": {"zh-hans": "In Chinese"}}
HTML_LANG = {"zh-hans": "zh-Hans", "en": "en"}
# A list entry and its link to the note: note lists (home, tags, series) and the archive.
ENTRIES = {
    "notes": (".note-list > li", ".note-item-title > a"),
    "archive": (".archive-list > li", "a[href*='/notes/']"),
}
NO_TRANSITIONS = "*, ::before, ::after { transition: none !important; animation: none !important }"


# --- what the database says --------------------------------------------------------------


@dataclass
class ListPage:
    name: str
    path: str  # in the Chinese interface (unprefixed)
    kind: str  # a key of ENTRIES
    notes: list  # the published notes in the list's scope, before the language rule


def published_notes():
    return list(Note.objects.published().prefetch_related("tags").select_related("series"))


def published_partners(notes):
    """{note pk: its published translation}, whichever note of the pair holds the link."""
    by_pk = {note.pk: note for note in notes}
    partners = {}
    for note in notes:
        other = by_pk.get(note.translation_id)
        if other is not None:
            partners[note.pk], partners[other.pk] = other, note
    return partners


def expected_entries(page, interface, notes):
    """The notes ``page`` lists in ``interface``, by the rule: a note in the interface's
    language is listed; one in the other language is listed (marked) when it has no published
    version in the interface's language and the site shows other-language notes."""
    partners = published_partners(notes)
    show_others = SiteSettings.load().show_other_languages
    listed = []
    for note in page.notes:
        partner = partners.get(note.pk)
        if note.language == interface:
            listed.append(note)
        elif show_others and not (partner and partner.language == interface):
            listed.append(note)
    return listed


def note_path(note, interface):
    with translation.override(interface):
        return note.get_absolute_url()


@pytest.fixture(scope="module")
def demo_lists(demo):
    """The four lists, their notes and the demo's translated pairs, read once."""
    notes = published_notes()
    partners = published_partners(notes)
    pairs = {}
    for note in notes:
        if note.pk in partners:
            other = partners[note.pk]
            pairs[min(note.pk, other.pk), max(note.pk, other.pk)] = (note, other)
    assert pairs, "the demo blog has no published translated pair: these tests need one"
    paired = [note for pair in pairs.values() for note in pair]
    # The tag with the most notes among those on both notes of a pair; the series of a pair.
    tags = [tag for a, b in pairs.values() for tag in a.tags.all() if tag in b.tags.all()]
    assert tags, "no tag is on both notes of a translated pair"
    tag = max(tags, key=lambda t: (sum(t in n.tags.all() for n in notes), t.slug))
    series = next((n.series for n in paired if n.series_id), None)
    assert series is not None, "no translated pair belongs to a series"
    with translation.override("zh-hans"):
        pages = [
            ListPage("home", reverse("blog:home"), "notes", notes),
            ListPage(
                f"tag {tag.slug}",
                tag.get_absolute_url(),
                "notes",
                [n for n in notes if tag in n.tags.all()],
            ),
            ListPage(
                f"series {series.slug}",
                series.get_absolute_url(),
                "notes",
                [n for n in notes if n.series_id == series.pk],
            ),
            ListPage("archive", reverse("blog:archive"), "archive", notes),
        ]
    return {"notes": notes, "pairs": list(pairs.values()), "pages": pages}


# --- what the browser shows --------------------------------------------------------------


def entries_of(page, kind):
    """Each entry of the list on ``page``: its link's path, title and lang."""
    item, link = ENTRIES[kind]
    return page.evaluate(
        """([item, link]) => [...document.querySelectorAll(item)].map(li => {
          const a = li.querySelector(link);
          const titled = a && a.closest("[lang]");
          return {href: a && a.getAttribute("href"), title: a && a.textContent.trim(),
                  lang: titled && titled.getAttribute("lang")};
        })""",
        [item, link],
    )


def check_marker(entry, note, interface, where):
    """The marker of one entry: visible, legible, in the right languages, rightly named."""
    marker = entry.locator(".lang-marker")
    expect(marker, f"{where}: no language marker").to_have_count(1)
    expect(marker).to_be_visible()
    box, outer = marker.bounding_box(), entry.bounding_box()
    assert box and box["width"] >= 1 and box["height"] >= 1, f"{where}: marker box {box}"
    inside = (
        outer["x"] - 0.5 <= box["x"]
        and box["x"] + box["width"] <= outer["x"] + outer["width"] + 0.5
    )
    assert inside, f"{where}: the marker ({box}) sticks out of its list item ({outer})"

    shown = marker.get_by_text(SHOWN[note.language], exact=True)
    expect(shown, f"{where}: the marker does not show {SHOWN[note.language]!r}").to_be_visible()
    expect(shown).to_have_attribute("lang", HTML_LANG[note.language])
    colour = shown.evaluate("element => getComputedStyle(element).color")
    behind = background_behind(shown)
    ratio = contrast_ratio(colour, behind)
    assert ratio >= 4.5, f"{where}: marker text {colour} on {behind}: contrast {ratio:.2f}:1"

    # For a screen reader: the meaning in the interface's language, in place of the mark.
    spoken = SPOKEN[interface][note.language]
    said = marker.get_by_text(spoken, exact=True)
    expect(said, f"{where}: the marker does not say {spoken!r}").to_have_count(1)
    expect(said).to_have_attribute("lang", HTML_LANG[interface])
    name = re.compile(rf"^{re.escape(note.title)}\s*{re.escape(spoken)}$")
    if entry.get_by_role("heading").count():
        expect(entry.get_by_role("heading")).to_have_accessible_name(name)
    else:  # an archive line: a date, the link and the marker
        tree = entry.aria_snapshot()
        assert f'- link "{note.title}"' in tree, f"{where}: {tree}"
        assert re.search(rf"^\s*- text: {re.escape(spoken)}$", tree, re.M), f"{where}: {tree}"
        assert SHOWN[note.language] not in tree.replace(note.title, ""), f"{where}: {tree}"


def check_unmarked(entry, note, where):
    expect(entry.locator(".lang-marker"), f"{where}: marked in its own language").to_have_count(0)
    headings = entry.get_by_role("heading")
    if headings.count():
        expect(headings).to_have_accessible_name(note.title)


def check_list(page, list_page, interface, demo_lists):
    """One list, page after page (``rel=next``), against the database."""
    expected = expected_entries(list_page, interface, demo_lists["notes"])
    by_path = {note_path(note, interface): note for note in demo_lists["notes"]}
    url = in_language(list_page.path, interface)
    item_selector = ENTRIES[list_page.kind][0]
    seen = []
    while url:
        visit(page, url)
        page.add_style_tag(content=NO_TRANSITIONS)
        for index, found in enumerate(entries_of(page, list_page.kind)):
            where = f"{interface} {list_page.name} {url}, entry {found['title']!r}"
            note = by_path.get(found["href"])
            assert note is not None, f"{where}: links to {found['href']}, not a published note"
            seen.append(note)
            assert found["title"] == note.title, f"{where}: titled {found['title']!r}"
            assert found["lang"] == HTML_LANG[note.language], f"{where}: lang {found['lang']}"
            entry = page.locator(item_selector).nth(index)
            if note.language == interface:
                check_unmarked(entry, note, where)
            else:
                check_marker(entry, note, interface, where)
        check_phone_width(page, item_selector, f"{interface} {list_page.name} {url}")
        next_link = page.locator(".pagination a[rel='next']")
        url = next_link.evaluate("link => link.href") if next_link.count() else None

    titles = lambda notes: sorted(f"{n.title} ({n.language})" for n in notes)  # noqa: E731
    where = f"{interface} {list_page.name}"
    for a, b in demo_lists["pairs"]:
        own, other = (a, b) if a.language == interface else (b, a)
        if own in list_page.notes:
            assert seen.count(own) == 1, f"{where}: {own.title!r} listed {seen.count(own)} times"
        assert other.pk not in {n.pk for n in seen}, (
            f"{where}: lists {other.title!r} beside its translation {own.title!r}"
        )
    assert len(seen) == len(set(seen)), f"{where}: an entry repeats: {titles(seen)}"
    assert titles(seen) == titles(expected), f"{where}: listed ≠ expected"
    return seen


def check_phone_width(page, item_selector, where):
    """At 390 px every marker stays inside its list item, and the item inside the page."""
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    try:
        overflows = page.evaluate(
            """([item, width]) => {
              const problems = [];
              for (const li of document.querySelectorAll(item)) {
                const outer = li.getBoundingClientRect();
                for (const marker of li.querySelectorAll(".lang-marker")) {
                  const box = marker.getBoundingClientRect();
                  if (box.width < 1 || box.height < 1 || box.left < outer.left - 0.5
                      || box.right > outer.right + 0.5 || box.right > width + 0.5
                      || marker.scrollWidth > marker.clientWidth + 1) {
                    problems.push(`${marker.textContent} spans ${box.left}..${box.right} px`
                      + ` (${marker.scrollWidth} px of content in ${marker.clientWidth}),`
                      + ` its item ${outer.left}..${outer.right} px`
                      + ` (${(li.querySelector("a") || li).textContent.trim()})`);
                  }
                }
              }
              return problems;
            }""",
            [item_selector, PHONE_WIDTH],
        )
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})
    assert not overflows, f"{where} at {PHONE_WIDTH} px:\n" + "\n".join(overflows)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("interface", ["zh-hans", "en"])
def test_lists_show_a_pair_once_and_mark_the_other_language(
    open_page, demo_lists, interface, theme
):
    page = open_page(color_scheme=theme, reduced_motion="reduce")
    marked = 0
    for list_page in demo_lists["pages"]:
        seen = check_list(page, list_page, interface, demo_lists)
        marked += sum(note.language != interface for note in seen)
        background = luminance(effective_background(page))
        assert (background < 0.2) == (theme == "dark"), f"{list_page.name} is not {theme}"
    assert not page.problems, f"problems in the page:\n{page.problems}"
    print(f"{interface}/{theme}: {marked} marked entries checked")
