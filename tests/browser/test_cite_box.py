"""The "Cite" box at a note's end: closed until asked for, then the reference in the note's own
language, which its button puts on the clipboard exactly as shown; axe finds nothing on the page
with the box open."""

import pytest
from playwright.sync_api import expect

from blog.models import Note, SiteSettings
from blog.models.citation import citation_of
from blog.text.citation.reference import reference
from tests.browser.site import FLASH, visit
from tests.browser.test_accessibility import WCAG_TAGS, describe, run_axe

pytestmark = pytest.mark.browser

# A Chinese note in the English interface, an English note in the Chinese one, and a translated
# article (its original's author first, its translator credited).
CASES = {
    "zh note, en interface": ("/en" + FLASH, "[EB/OL]", "zh-Hans"),
    "en note, zh interface": ("/notes/cuda-warp-scheduling-en/", "(2025, June 1)", "en"),
    "translated article": ("/notes/decode-gemv-worklog/", "OKAFOR I. ", "zh-Hans"),
}


def expected_reference(path):
    note = Note.objects.get(slug=path.rstrip("/").rsplit("/", 1)[1])
    return reference(citation_of(note, SiteSettings.load()))


@pytest.mark.parametrize("case", CASES)
def test_the_cite_box_shows_and_copies_the_reference(open_page, demo, axe_source, case):
    path, marker, lang = CASES[case]
    expected = expected_reference(path)
    assert marker in expected
    page = open_page(color_scheme="light", bypass_csp=True)  # bypass: axe is injected
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=demo.url)
    visit(page, path)

    box = page.locator("article details.cite-box")
    text = box.locator(".cite-reference")
    expect(text).to_be_hidden()
    box.locator("summary").click()
    expect(text).to_be_visible()
    expect(text).to_have_text(expected)
    expect(text).to_have_attribute("lang", lang)

    violations = run_axe(page, axe_source, WCAG_TAGS)
    assert not violations, "\n".join(describe(violation, path) for violation in violations)

    english = path.startswith("/en/")
    button = box.locator("button.cite-copy")
    expect(button).to_be_visible()
    expect(button).to_have_accessible_name("Copy the reference" if english else "复制引文")
    page.evaluate("navigator.clipboard.writeText('')")
    button.click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).length > 0")
    assert page.evaluate("navigator.clipboard.readText()") == expected
    expect(button).to_have_text("Copied" if english else "已复制")
    assert not page.problems, f"problems:\n{page.problems}"
