"""Browser tests: Playwright (sync API) driving Debian's chromium against a live server.

* One chromium for the whole browser package (``browser``), a fresh context (one reader, no
  cookies, storage or HTTP cache) per page opened through ``open_page``.
* The live server answers like production: static files are the collected, fingerprinted ones
  served by WhiteNoise from ``STATIC_ROOT`` (Django's own staticfiles handler would look the
  hashed names up in the source folders and answer 404 for every stylesheet and script).
* The demo blog is loaded per test (``demo``; ~0.35 s on SQLite, ~0.7 s on PostgreSQL), since
  ``live_server`` implies ``transactional_db``, which empties the database after each test.
* On failure a screenshot of every page the test opened is saved to
  ``tests/browser/artifacts/<test-name>.png`` and its path added to the failure report.

Playwright's sync API keeps an asyncio loop running on the main thread while it is alive, which
Django's async-safety guard would take for an async context: ``DJANGO_ALLOW_ASYNC_UNSAFE`` is
set for exactly as long as Playwright runs (the browser package), not for the other tests.
"""

import io
import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command

CHROMIUM = Path(os.environ.get("BIJI_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT_MS = 10_000

PAGES = pytest.StashKey[list]()


# --- browser --------------------------------------------------------------------------------


@pytest.fixture(scope="package")
def browser():
    """Debian's chromium, launched once for the browser tests.

    Fails (never skips) when chromium is missing: ``make test`` installs it.
    """
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests drive Debian's chromium. Install it with "
            "`make browser-deps` (or `bash scripts/install-browser-deps.sh`: chromium, "
            "fonts-noto-cjk and axe-core).",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
            yield chromium
            chromium.close()


@pytest.fixture(scope="session")
def axe_source():
    if not AXE_JS.is_file():
        pytest.fail(
            f"{AXE_JS} is missing: run `npm ci` (or `make browser-deps`) to install axe-core.",
            pytrace=False,
        )
    return AXE_JS.read_text("utf-8")


# --- server and data ------------------------------------------------------------------------


def _no_static_handler(app):
    """Leave /static/ to the app itself, i.e. to WhiteNoise, as in production."""
    return app


@pytest.fixture(scope="package")
def live_server(request, django_db_setup, _collected_static_files):
    """pytest-django's live server, with static files served by WhiteNoise from STATIC_ROOT.

    Depends on the test database (so an in-memory SQLite connection is shared with the server
    thread) and on the collected static files (WhiteNoise indexes STATIC_ROOT on start).
    """
    from pytest_django.live_server_helper import LiveServer

    addr = (
        request.config.getvalue("liveserver")
        or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
        or "localhost"
    )
    server = LiveServer(addr, start=False)
    server.thread.static_handler = _no_static_handler
    server.start()
    yield server
    server.stop()


@pytest.fixture
def demo(live_server, transactional_db):
    """The demo blog (blog/demo/), loaded fresh for this test; returns the server."""
    call_command("load_demo", stdout=io.StringIO())
    return live_server


# --- pages ----------------------------------------------------------------------------------


class Problems(list):
    """What went wrong in a page while the test ran: console errors, uncaught exceptions,
    CSP violations and failed same-origin requests."""

    def __str__(self):
        return "\n".join(f"  - {p}" for p in self) or "  (none)"


def watch(page, base_url):
    problems = Problems()

    def on_console(message):
        if message.type == "error":
            problems.append(f"console error on {page.url}: {message.text}")

    def on_response(response):
        if response.url.startswith(base_url) and response.status >= 400:
            problems.append(f"HTTP {response.status} for {response.url} (from {page.url})")

    def on_failed(req):
        # A navigation cancels what the previous page still loads (its favicon, say).
        if req.url.startswith(base_url) and req.failure != "net::ERR_ABORTED":
            problems.append(f"request failed: {req.url}: {req.failure}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"uncaught error on {page.url}: {error}"))
    page.on("response", on_response)
    page.on("requestfailed", on_failed)
    return problems


@pytest.fixture
def open_page(browser, demo, request):
    """Factory: ``open_page(**context_options)`` → a page in a new browser context.

    Options go to ``browser.new_context`` (viewport, color_scheme, java_script_enabled,
    bypass_csp…); ``base_url`` is the live server, so ``page.goto("/en/")`` works. Each page
    gets ``page.problems`` (see :class:`Problems`).
    """
    contexts = []

    def _open(**options):
        options.setdefault("base_url", demo.url)
        options.setdefault("viewport", DESKTOP)
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.problems = watch(page, demo.url)
        request.node.stash.setdefault(PAGES, []).append(page)
        return page

    yield _open
    for context in contexts:
        context.close()


@pytest.fixture
def page(open_page):
    """A desktop page, light colour scheme, JavaScript on, demo content loaded."""
    return open_page(color_scheme="light")


# --- screenshots on failure -----------------------------------------------------------------


def _artifact_name(item):
    return re.sub(r"[^\w.-]+", "_", item.name).strip("_") or "test"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and report.when in ("setup", "call"):
        pages = [p for p in item.stash.get(PAGES, []) if not p.is_closed()]
        saved = []
        for number, open_ in enumerate(pages, start=1):
            suffix = "" if number == 1 else f"-{number}"
            path = ARTIFACTS / f"{_artifact_name(item)}{suffix}.png"
            try:
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                open_.screenshot(path=str(path), full_page=True, timeout=5_000)
            except Exception as error:  # a crashed page must not hide the real failure
                saved.append(f"(no screenshot of {open_.url}: {error})")
            else:
                saved.append(f"{path.relative_to(ROOT)}  ({open_.url})")
        if saved:
            text = "\n".join(saved)
            report.sections.append(("browser screenshots", text))
            print(f"\nbrowser screenshots for {item.nodeid}:\n{text}")
    return report
