"""Browser tests: Playwright (sync API) driving Debian's chromium against a live server.

* One chromium for the whole browser package (``browser``), a fresh context (one reader, no
  cookies, storage or HTTP cache) per page opened through ``open_page``.
* ``demo``: the demo blog, loaded once for the package, behind a live server that answers like
  production: static files are the collected, fingerprinted ones served by WhiteNoise from
  ``STATIC_ROOT``. (Django's staticfiles handler, which pytest-django's ``live_server`` puts in
  front, looks the fingerprinted names up in the source folders, finds nothing and serves no
  stylesheet or script.) The tests only read; the database is emptied after the last one.
* On failure a screenshot of every page the test opened is saved to
  ``tests/browser/artifacts/<test-name>.png`` and its path added to the failure report.

Playwright's sync API keeps an asyncio loop running on the main thread while it is alive, which
Django takes for an async context: its async-safety guard would refuse the ORM, so
``DJANGO_ALLOW_ASYNC_UNSAFE`` is set for exactly as long as Playwright runs (the browser
package), and its database connections live in a storage of their own, closed when Playwright
stops.

Do not use ``live_server``, ``transactional_db`` (or anything that writes) in these tests: the
data is shared by the whole package (collection refuses the first two).
"""

import io
import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command, get_commands
from django.db import connections
from django.test import override_settings

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
            try:
                yield chromium
            finally:
                # While Playwright's loop runs, Django keeps this thread's connections in an
                # async-context storage of their own (asgiref.local): close them before it
                # stops, or they stay open and PostgreSQL refuses to drop the test database.
                connections.close_all()
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


def _empty_the_database():
    """What pytest-django does after a transactional test: flush every model table. The
    search index is a table of its own (raw SQL, blog/search/), which flush does not know:
    rebuild it from the now empty notes table, so no stale rows outlive the demo."""
    call_command("flush", interactive=False, verbosity=0)
    if "rebuild_search_index" in get_commands():
        call_command("rebuild_search_index", stdout=io.StringIO())


@pytest.fixture(scope="package")
def db(django_db_setup, django_db_blocker):
    """Database access for the whole browser package, with no transaction around each test:
    the live server must see committed data, and the tests only read it. The database is
    emptied after the last browser test, as pytest-django does after a transactional test.

    This overrides pytest-django's ``db`` for this package only; the name matters, since it
    is how pytest-django knows to create the test database when only browser tests run.
    """
    with django_db_blocker.unblock():
        try:
            yield
        finally:
            _empty_the_database()


@pytest.fixture(scope="package")
def demo(request, db, _collected_static_files):
    """The demo blog (blog/ops/demo/) behind a live server, once for all the browser tests.

    The tests only read, so one load serves them all: loaded per test it costs ~0.4 s on
    SQLite and ~1 s on PostgreSQL, with the flush that follows. This is pytest-django's
    ``LiveServer`` (the server behind its ``live_server`` fixture), with two differences:
    static files are served by WhiteNoise from STATIC_ROOT, as in production; and the data
    is committed once for the package (see ``db``), where ``live_server`` would make every
    test transactional and empty the database after each.

    ``SITE_URL`` is the server's own address while it runs.

    Returns the server (``demo.url``).
    """
    from pytest_django.live_server_helper import LiveServer

    addr = (
        request.config.getvalue("liveserver")
        or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
        or "localhost"
    )
    call_command("load_demo", stdout=io.StringIO())
    server = LiveServer(addr, start=False)  # after the test database exists: SQLite's
    server.thread.static_handler = _no_static_handler  # in-memory one is shared with it
    server._live_server_modified_settings.enable()  # its host in ALLOWED_HOSTS
    try:
        server.start()
        # Canonical links, hreflang alternates, feeds and JSON-LD point at the server under
        # test, as `make run` points them at its own (SITE_URL follows the port): otherwise
        # they name http://127.0.0.1:8000, another origin than the page's.
        with override_settings(SITE_URL=server.url):
            yield server
        server.stop()
    finally:
        server._live_server_modified_settings.disable()


# Parameters that choose the colour scheme, and those that choose the interface language.
SCHEME_PARAMS = ("scheme", "theme")
LANGUAGE_PARAMS = ("prefix", "language", "interface")


def in_turn(item) -> bool:
    """Whether ``item`` is a combination its test runs. A test parametrized by both the colour
    scheme and the interface language meets each scheme once and each language once, in turn
    (Chinese light, English dark), as Lighthouse's runs take the form factors: a rule broken in
    one scheme or one language shows in one of the two. The other two combinations cost ~25 s
    of the gate's CPU (until 2026-12-06); the deselected are counted in the run's summary."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    scheme = next((params[name] for name in SCHEME_PARAMS if name in params), None)
    language = next((name for name in LANGUAGE_PARAMS if name in params), None)
    position = _position(item, language) if language else None
    if scheme is None or position is None:
        return True  # a list of chosen combinations (test_term_tooltip.py) is run as it is
    return (["light", "dark"].index(scheme) + position) % 2 == 0


def _position(item, name):
    """Where ``item``'s value of the parameter ``name`` stands among the values of its own
    ``parametrize``; None when it is parametrized together with others."""
    for mark in item.iter_markers("parametrize"):
        if mark.args[0] == name:
            return list(mark.args[1]).index(item.callspec.params[name])
    return None


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    inside = [item for item in items if here in Path(str(item.path)).resolve().parents]
    skipped = [item for item in inside if not in_turn(item)]
    if skipped:
        config.hook.pytest_deselected(items=skipped)
        items[:] = [item for item in items if item not in skipped]
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            wrong = {"live_server", "transactional_db"} & set(item.fixturenames)
            if wrong:
                raise pytest.UsageError(
                    f"{item.nodeid} uses {', '.join(sorted(wrong))}: browser tests use the "
                    "package's `demo` server; a transactional test would empty the database "
                    "under the tests that follow."
                )


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


@pytest.fixture(params=["light", "dark"])
def scheme(request):
    """Both colour schemes (``prefers-color-scheme``), for tests of what must hold in either
    theme: layout, typography, behaviour; taken in turn with the interface language
    (:func:`in_turn`). Contrast itself is test_accessibility.py's."""
    return request.param


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
