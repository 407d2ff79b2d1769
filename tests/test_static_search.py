"""Search on the static site (issue 37, blog/ops/static_site/search.py): Pagefind's indexes of
the note pages, one per note language, and the static search pages reading them in a browser.

The folder is built here, not by ``build_site``: the note pages of both interfaces rendered by
the test client, then ``add_search``; the browser test adds the collected static files and
serves the folder with ``python -m http.server``."""

import json
import os
import shutil
import socket
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import get_script_prefix

from blog.models import Language, Term
from blog.models.translations import link_translation
from blog.ops.static_site.build import Build
from blog.ops.static_site.search import (
    SearchIndexError,
    add_search,
    run_pagefind,
    write_search_pages,
)
from tests.factories import make_note
from tests.processes import folder_server

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("BIJI_CHROMIUM", "/usr/bin/chromium"))
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

NOTES = {
    # 调度 in the title and inside a sentence.
    "gpu-scheduling": dict(
        title="GPU 内核的调度策略",
        language=Language.CHINESE,
        body="我们讨论如何在多个流之间调度内核，以及公平性。\n",
    ),
    # 调度 only inside a Chinese sentence, never in the title.
    "memory-notes": dict(
        title="显存管理笔记",
        language=Language.CHINESE,
        body="训练时显存碎片很多。后来我们重新调度了分配顺序，问题就消失了。\n",
    ),
    "kernel-launch": dict(
        title="Kernel launch overhead & latency",
        language=Language.ENGLISH,
        body="Every kernel launch costs a few microseconds on the host & the driver.\n",
    ),
    # kernel-launch's translation: each interface lists only the note in its own language.
    "kernel-launch-zh": dict(
        title="内核启动的开销",
        language=Language.CHINESE,
        body="每次 kernel launch 都要在主机上花几微秒。\n",
    ),
    "unrelated": dict(
        title="Reading list",
        language=Language.ENGLISH,
        body="Books about typography and gardens.\n",
    ),
}


def build_folder(folder: Path) -> None:
    Term.objects.create(english="scheduling", chinese="调度")
    notes = {slug: make_note(slug=slug, **fields) for slug, fields in NOTES.items()}
    link_translation(notes["kernel-launch-zh"], notes["kernel-launch"])
    client = Client()
    for path in ("/", "/en/"):  # the home pages, for axe as a static host serves them
        target = folder / path.strip("/") / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(client.get(path).content)
    for slug in NOTES:
        for prefix in ("", "/en"):
            path = f"{prefix}/notes/{slug}/"
            response = client.get(path)
            assert response.status_code == 200, path
            target = folder / path.strip("/") / "index.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(response.content)


@pytest.fixture
def site(db, tmp_path):
    folder = tmp_path / "site"
    build_folder(folder)
    summary = add_search(folder, None)
    return folder, summary


# The browser test below indexes and searches the same folder in the gate; this reads the index
# and the rarer paths (a site under a path, a run past its time): make test-interop.
@pytest.mark.skipif(not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it")
@pytest.mark.slow  # Pagefind, twice at once: ~1 s
def test_pagefind_indexes_each_note_once_in_the_index_of_its_language(site):
    folder, summary = site
    for language in ("zh-hans", "en"):
        bundle = folder / "pagefind" / language
        entry = json.loads((bundle / "pagefind-entry.json").read_text("utf-8"))
        assert list(entry["languages"]) == [language]
        assert (bundle / "pagefind.js").is_file()
    assert summary["languages"] == {"zh-hans": 3, "en": 2}
    assert summary["index_bytes"] > 0
    assert summary["pages"] == [
        "search/data.json",
        "search/index.html",
        "en/search/index.html",
    ]
    data = json.loads((folder / "search" / "data.json").read_text("utf-8"))
    assert data["terms"] == [[["调度", "zh-Hans"], ["scheduling", "en"]]]
    for path, lang in (("search/index.html", "zh-Hans"), ("en/search/index.html", "en")):
        page = (folder / path).read_text("utf-8")
        assert f'<html lang="{lang}"' in page
        assert 'id="static-search"' in page and '<script src="/static/js/static-search.' in page
        assert "<script>" not in page  # no inline script: the live site's CSP forbids them
    # Nothing is left of the work: the staged pages, the logs.
    assert not list(folder.glob(".pagefind*"))

    # A site served under a path: the pages, the indexes and the results carry it. (The build
    # renders such a site with a page cache of its own, as here.)
    private_cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(
        SITE_URL="https://example.org/blog", ALLOWED_HOSTS=["example.org"], CACHES=private_cache
    ):
        write_search_pages(folder, ["en", "zh-hans"])
    assert get_script_prefix() == "/"
    page = (folder / "en" / "search" / "index.html").read_text("utf-8")
    assert 'data-base-url="/blog/en/"' in page and "/blog/pagefind/zh-hans/" in page
    assert 'href="/blog/en/search/?q=' in page  # the live page's own examples
    assert 'data-data="/blog/search/data.json"' in page

    # A run stopped for its time keeps the last indexes, and leaves nothing behind either.
    with pytest.raises(SearchIndexError, match="took more than"):
        run_pagefind(folder, timeout=0)
    assert (folder / "pagefind" / "zh-hans" / "pagefind-entry.json").is_file()
    assert not list(folder.glob(".pagefind*"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(site):
    folder, _ = site
    shutil.copytree(settings.STATIC_ROOT, folder / "static")  # the collected, hashed files
    port = _free_port()
    with folder_server(folder, port):
        yield f"http://127.0.0.1:{port}"


def _results(page, base, path):
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.goto(base + path)
    page.wait_for_selector("#search-status:not(:empty)")
    links = page.eval_on_selector_all(
        "#search-results h2 a", "links => links.map(a => a.getAttribute('href'))"
    )
    return links, problems


def assert_no_violations(page):
    page.add_script_tag(content=AXE_JS.read_text("utf-8"))
    violations = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: "tag", values: tags},
                                      resultTypes: ["violations"]})""",
        WCAG_TAGS,
    )["violations"]
    assert violations == [], (page.url, json.dumps(violations, ensure_ascii=False)[:2000])


@pytest.mark.browser
def test_the_static_search_pages_find_notes_in_a_browser(served):
    for needed in (CHROMIUM, AXE_JS):
        if not needed.is_file():
            pytest.fail(f"{needed} is missing: `make browser-deps` installs it", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        try:
            page = browser.new_page()
            page.set_default_timeout(5_000)

            links, problems = _results(page, served, "/search/?q=调度")
            assert not problems
            assert set(links) == {"/notes/gpu-scheduling/", "/notes/memory-notes/"}
            assert page.input_value("#site-search") == "调度"
            assert page.locator("#search-results mark").first.inner_text() == "调度"
            assert "调度" in page.inner_text("h1")

            links, problems = _results(page, served, "/en/search/?q=kernel")
            assert not problems
            assert links == ["/en/notes/kernel-launch/"]
            # Titles and excerpts as text: "&", not "&amp;".
            assert page.inner_text("#search-results h2") == "Kernel launch overhead & latency"
            assert "the host & the driver" in page.inner_text("#search-results .excerpt")

            # Either interface finds notes of both languages, under its own prefix.
            links, _ = _results(page, served, "/en/search/?q=调度")
            assert set(links) == {"/en/notes/gpu-scheduling/", "/en/notes/memory-notes/"}
            languages = page.eval_on_selector_all("#search-results h2", "hs => hs.map(h => h.lang)")
            assert languages == ["zh-Hans", "zh-Hans"]  # the note's language, not the page's
            # A translated pair: each interface lists the note in its own language.
            links, _ = _results(page, served, "/search/?q=kernel")
            assert links == ["/notes/kernel-launch-zh/"]

            # A glossary form finds the notes that write the term's other forms.
            links, _ = _results(page, served, "/en/search/?q=Scheduling")
            assert set(links) == {"/en/notes/gpu-scheduling/", "/en/notes/memory-notes/"}
            assert page.inner_text(".search-also") == "Also searched for: 调度"
            assert page.get_attribute(".search-also span", "lang") == "zh-Hans"

            links, _ = _results(page, served, "/en/search/?q=zebra")
            assert links == [] and page.is_hidden("#search-results")

            # axe on a page of results, and on the copy's home and note pages as a static host
            # serves them (python -m http.server sends no CSP to refuse axe).
            _results(page, served, "/search/?q=调度")
            assert_no_violations(page)
            for path in ("/", "/en/", "/notes/gpu-scheduling/", "/en/notes/kernel-launch/"):
                page.goto(served + path)
                assert_no_violations(page)
        finally:
            browser.close()


@pytest.mark.backend_independent
def test_a_build_that_wrote_no_note_or_glossary_page_keeps_the_last_index(tmp_path):
    """Pagefind takes ~17 s at 10,000 notes: an edit that no note page shows leaves it be."""
    (tmp_path / "pagefind").mkdir()
    build = Build(tmp_path, "https://blog.example", False, 10, 10, lambda line: None)
    build.old, build.report.full = {"search": {"pages": ["search/index.html"]}}, False
    build.report.written = {"index.html", "tags/cuda/index.html", "feed/index.html"}
    assert build.search_is_current()
    for indexed in ("en/notes/kernel/index.html", "glossary/index.html"):
        build.report.written.add(indexed)
        assert not build.search_is_current()
        build.report.written.discard(indexed)
    build.report.full = True
    assert not build.search_is_current()
