"""axe-core on every kind of public page, in both interface languages and both themes; and
the keyboard basics axe cannot see.

axe is injected into the page, so these contexts bypass the Content-Security-Policy
(``script-src 'self'`` rightly refuses an injected inline script). Dark pages are produced by
``prefers-color-scheme: dark``; test_theme.py checks that the toggle gives the same palette.
Collapsed ``<details>`` are opened first so that their contents are checked too. Failures list
every violation with its rule, impact, help, and each element's selector, HTML and the reason.
"""

import json
import warnings

import pytest
from playwright.sync_api import expect

from tests.browser.site import FLASH, PAGES, effective_background, in_language, luminance, visit

pytestmark = pytest.mark.browser

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# Every WCAG 2.1 A/AA rule in both languages and themes; best-practice rules (advice, reported
# as warnings, not failures) once: Chinese interface, light theme.
ADVICE_TAGS = [*WCAG_TAGS, "best-practice"]


# Colours are read the moment the scheme changes, not halfway through a transition.
NO_TRANSITIONS = "*, ::before, ::after { transition: none !important; animation: none !important }"


class AxeFinding(UserWarning):
    """A best-practice finding of axe: reported, not failed."""


def run_axe(page, axe_source, tags, colour_only=False):
    """axe's violations for the rules with any of ``tags``; with ``colour_only``, only those
    of them that depend on colours (axe's "cat.color" rules: contrast, links in text)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    return page.evaluate(
        """([tags, colourOnly]) => {
          const rules = axe.getRules(tags)
            .filter(rule => !colourOnly || rule.tags.includes("cat.color"))
            .map(rule => rule.ruleId);
          return axe.run(document, {
            runOnly: {type: "rule", values: rules}, resultTypes: ["violations"],
          });
        }""",
        [tags, colour_only],
    )["violations"]


def describe(violation, where):
    lines = [
        f"[{where}] {violation['id']} ({violation.get('impact') or 'n/a'}): {violation['help']}",
        f"    {violation['helpUrl']}",
    ]
    for node in violation["nodes"][:8]:
        target = " ".join(json.dumps(t, ensure_ascii=False) for t in node["target"])
        lines.append(f"    - {target}")
        lines.append(f"      {node['html'][:300]}")
        summary = (node.get("failureSummary") or "").replace("\n", "\n        ")
        if summary:
            lines.append(f"        {summary}")
    if len(violation["nodes"]) > 8:
        lines.append(f"    … and {len(violation['nodes']) - 8} more elements")
    return "\n".join(lines)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_axe_finds_no_wcag_violations(open_page, axe_source, language):
    """Each page is loaded once and checked in the light theme, then, after switching the
    emulated colour scheme to dark, checked again with the rules that depend on colours (the
    DOM is the same, so the other rules would repeat themselves)."""
    page = open_page(bypass_csp=True, color_scheme="light", reduced_motion="reduce")
    # Injected before any page script on every navigation (one transfer for all pages).
    page.context.add_init_script(script=axe_source)
    failures, advice = [], []
    for name, path in PAGES.items():
        url = in_language(path, language)
        page.emulate_media(color_scheme="light")
        visit(page, url)
        page.add_style_tag(content=NO_TRANSITIONS)
        for theme in ("light", "dark"):
            if theme == "dark":
                page.emulate_media(color_scheme="dark")
                assert luminance(effective_background(page)) < 0.2, f"{url} is not dark"
            advise = language == "zh-hans" and theme == "light"
            tags = ADVICE_TAGS if advise else WCAG_TAGS
            for violation in run_axe(page, axe_source, tags, colour_only=theme == "dark"):
                text = describe(violation, f"{language}/{theme}: {name} {url}")
                if set(violation["tags"]) & set(WCAG_TAGS):
                    failures.append(text)
                else:
                    advice.append(text)
    for text in advice:
        warnings.warn(AxeFinding("axe best practice: " + text), stacklevel=1)
    if failures:
        report = "\n".join(failures)
        pytest.fail(f"{len(failures)} WCAG 2.1 A/AA violation(s):\n{report}", pytrace=False)


def test_skip_link_moves_focus_to_the_content(page):
    visit(page, FLASH)
    page.keyboard.press("Tab")
    skip = page.locator("a.skip-link, a[href='#main']").first
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box and box["y"] >= 0 and box["width"] > 1, "the focused skip link is not visible"
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()


def test_focus_is_visible_on_links_and_buttons(page):
    """Every focusable control in the header shows a focus indicator (an outline or a box
    shadow) when reached with the keyboard."""
    visit(page, FLASH)
    missing = []
    for _ in range(14):
        page.keyboard.press("Tab")
        info = page.evaluate(
            """() => {
              const el = document.activeElement, s = getComputedStyle(el);
              return {
                what: el.outerHTML.slice(0, 120),
                visible: (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0)
                         || s.boxShadow !== "none",
              };
            }"""
        )
        if not info["visible"]:
            missing.append(info["what"])
    assert not missing, "no visible focus indicator on:\n" + "\n".join(missing)
