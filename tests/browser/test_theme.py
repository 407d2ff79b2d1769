"""The theme toggle: a remembered choice on top of the system's colour scheme."""

import pytest
from playwright.sync_api import expect

from tests.browser.site import FLASH, effective_background, luminance, visit

pytestmark = pytest.mark.browser

STORAGE_KEY = "biji-theme"


def palette(page):
    """The colours a reader sees: background behind the text and the body text colour."""
    return effective_background(page), page.evaluate("getComputedStyle(document.body).color")


def wait_for_background_change(page, before):
    page.wait_for_function(
        """before => {
          const clear = c => c === "transparent" || /^rgba\\(.*,\\s*0\\)$/.test(c);
          const body = getComputedStyle(document.body).backgroundColor;
          const now = clear(body) ? getComputedStyle(document.documentElement).backgroundColor
                                  : body;
          return now !== before;
        }""",
        arg=before,
    )


def test_toggle_switches_theme_and_is_remembered(open_page):
    page = open_page(color_scheme="light", reduced_motion="reduce")
    visit(page, "/")
    html = page.locator("html")
    toggle = page.locator("#theme-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    light_bg, light_text = palette(page)
    assert luminance(light_bg) > 0.5, f"the light theme is not light: {light_bg}"
    assert html.get_attribute("data-theme") in (None, "", "light")

    toggle.click()
    expect(html).to_have_attribute("data-theme", "dark")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    wait_for_background_change(page, light_bg)
    dark_bg, dark_text = palette(page)
    assert luminance(dark_bg) < 0.2, f"the dark theme is not dark: {dark_bg}"
    assert dark_text != light_text, "the text colour did not follow the theme"
    assert page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')") == "dark"

    # Remembered across a reload and on another page, before the first paint (theme.js).
    page.reload()
    expect(html).to_have_attribute("data-theme", "dark")
    assert palette(page) == (dark_bg, dark_text)
    visit(page, FLASH)
    expect(html).to_have_attribute("data-theme", "dark")
    assert palette(page) == (dark_bg, dark_text)
    expect(page.locator("#theme-toggle")).to_have_attribute("aria-pressed", "true")

    # And back.
    page.locator("#theme-toggle").click()
    expect(html).to_have_attribute("data-theme", "light")
    wait_for_background_change(page, dark_bg)
    assert palette(page) == (light_bg, light_text)
    page.reload()
    expect(html).to_have_attribute("data-theme", "light")
    assert palette(page) == (light_bg, light_text)
    assert not page.problems, f"problems:\n{page.problems}"


def test_system_dark_scheme_without_a_choice_is_dark(open_page):
    # The reference: a light system with "dark" chosen through the toggle.
    chosen = open_page(color_scheme="light", reduced_motion="reduce")
    visit(chosen, "/")
    before = effective_background(chosen)
    chosen.locator("#theme-toggle").click()
    expect(chosen.locator("html")).to_have_attribute("data-theme", "dark")
    wait_for_background_change(chosen, before)
    chosen_dark = palette(chosen)

    page = open_page(color_scheme="dark", reduced_motion="reduce")
    visit(page, "/")
    html = page.locator("html")
    assert html.get_attribute("data-theme") in (None, ""), "a theme was chosen without a click"
    background, text = palette(page)
    assert luminance(background) < 0.2, f"prefers-color-scheme: dark gives {background}"
    assert luminance(text) > 0.5, f"dark theme text colour is {text}"
    # The media query and the toggle give one and the same dark palette.
    assert (background, text) == chosen_dark
    toggle = page.locator("#theme-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "true")

    # The toggle overrides the system: light on a dark system, remembered.
    toggle.click()
    expect(html).to_have_attribute("data-theme", "light")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    wait_for_background_change(page, background)
    assert luminance(palette(page)[0]) > 0.5
    page.reload()
    expect(html).to_have_attribute("data-theme", "light")
    assert luminance(palette(page)[0]) > 0.5
