"""What a first visit downloads: the home page with its CSS and JavaScript stays within 30 KB on
the wire (≤ 5 KB of JavaScript), and nothing comes from another origin.

Measured the way a reader's browser meets it: a fresh context (empty HTTP cache) asking for
compressed responses from the live server, which serves static files through WhiteNoise
(pre-compressed copies) and pages through the gzip middleware, as in production. Sizes are
chromium's own count of each response's bytes on the wire: headers plus the encoded body.
Every request is listed on failure, so a budget overrun names its cause.
"""

import pytest

from tests.browser.site import FLASH, in_language, visit

pytestmark = pytest.mark.browser

BUDGET = 30 * 1024
SCRIPT_BUDGET = 5 * 1024


def downloads(open_page, path):
    """``[(url, resource type, bytes on the wire)]`` of everything loading ``path`` fetched."""
    page = open_page(color_scheme="light")
    requests = []
    page.on("requestfinished", lambda request: requests.append(request))
    visit(page, path)
    page.wait_for_load_state("networkidle")
    result = []
    for request in requests:
        sizes = request.sizes()
        wire = sizes["responseHeadersSize"] + sizes["responseBodySize"]
        result.append((request.url, request.resource_type, wire))
    return page, result


def listing(fetched):
    return "\n".join(f"  {size:>7,} B  {kind:<10} {url}" for url, kind, size in fetched)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("path", ["/", FLASH], ids=["home", "note"])
def test_a_first_visit_is_light_and_from_one_origin(open_page, demo, path, language):
    page, fetched = downloads(open_page, in_language(path, language))
    assert fetched, "no request was recorded"
    foreign = [url for url, _kind, _size in fetched if not url.startswith(demo.url)]
    assert not foreign, "third-party requests:\n" + "\n".join(foreign)
    document = [size for url, kind, size in fetched if kind == "document"]
    assert len(document) == 1
    # Compressed as browsers ask: an uncompressed page would be several times larger.
    encoding = page.evaluate(
        "performance.getEntriesByType('navigation')[0].encodedBodySize"
        " < performance.getEntriesByType('navigation')[0].decodedBodySize"
    )
    assert encoding, "the page was not sent compressed"
    scripts = sum(size for _url, kind, size in fetched if kind == "script")
    total = sum(size for _url, _kind, size in fetched)
    if path == "/":
        assert total <= BUDGET, f"{total:,} B > {BUDGET:,} B:\n{listing(fetched)}"
    assert scripts <= SCRIPT_BUDGET, f"{scripts:,} B of JavaScript:\n{listing(fetched)}"
