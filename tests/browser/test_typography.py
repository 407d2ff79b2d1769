"""What the reader's eyes get: Latin text in a face that matches the Chinese one."""

import pytest

from .site import FLASH, visit

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_latin_text_is_not_set_in_dejavu_next_to_noto_cjk(open_page, prefix):
    page = open_page(color_scheme="light")
    visit(page, prefix + FLASH)
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    root = session.send("DOM.getDocument")["root"]["nodeId"]
    fonts = set()
    for selector in (".prose p", ".note-item-title, h1", ".site-nav a"):
        node = session.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        used = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        fonts |= {font["familyName"] for font in used}
    assert fonts and not any("DejaVu" in name for name in fonts), fonts
