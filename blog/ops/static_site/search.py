"""Search without a server: Pagefind's indexes of the built site, and the two search pages that
read them in the browser (issue 37).

``add_search(folder, manifest)`` runs last in a build, over the folder the crawl wrote:

* Pagefind (``pagefind[extended]`` on PyPI: its extended binary segments Chinese into words)
  indexes each published note once, in the index of the note's language: a Chinese note from
  its Chinese page (``notes/<slug>/index.html``, ``<html lang="zh-Hans">``: segmented), an
  English note from its English page (``en/notes/<slug>/index.html``, ``lang="en"``: stemmed).
  The pages are hard-linked into a staging folder per language as ``notes/<slug>/index.html``
  and each is indexed by a Pagefind of its own, both at once, into ``pagefind/zh-hans/`` and
  ``pagefind/en/``. (Indexed from both interfaces, a Chinese note's English page would land
  in the English index, which does not segment Chinese: 调度 would not find it there.) Of a
  page only the note's article is read (``--root-selector``): its title, tags and text, without
  its series and part, dates and reading time, the other language's title, the table of
  contents, the glossary's tooltips, the source box. No template names Pagefind. The indexes
  are written in a hidden work folder inside the folder and moved into ``pagefind/`` when
  complete: a failed or timed-out run leaves the last ones in place.
* ``search/data.json``: each glossary term's forms, so that a search for one form also searches
  the others, as the live search does.
* The search pages, ``search/index.html`` and ``en/search/index.html``, are the live site's
  own ``/search/`` and ``/en/search/`` (rendered through Django's test client: the same
  chrome, header form and examples) with a results region added: an empty live region for
  the count, a list and pagination the script fills, and the messages it shows, in the
  page's language from biji's catalogue. ``static/js/static-search.js`` (no inline script:
  the site's CSP forbids them; loaded in ``<head>``, so that a page with a query keeps the
  results' place from its first paint and nothing moves when they arrive) reads ``q`` and
  ``page`` from the address, loads both indexes (each with its own copy of ``pagefind.js``),
  searches the query and its glossary forms, and lists the results by score, twenty a page,
  linking each under the page's interface prefix (``/notes/…`` or ``/en/notes/…``), its
  title and excerpt in the note's language.

Like the live search, an interface leaves out a note whose translation is published in its
language (the note is staged with a Pagefind filter the page excludes).

What differs from the live search (blog/search/): Pagefind matches words and word prefixes, not
substrings (a Chinese word its segmenter keeps inside a longer word is not found, nor a single
character; an English word is found by its stem); it ranks by its own BM25, not title, then
tags, then body; a query's word that is in no note at all is dropped instead of finding nothing;
a quoted Chinese phrase is searched as its words; a glossary form is expanded only when it is
the whole query (the live search expands each of its words); no cap on the query or its time.
A static host must allow WebAssembly (``script-src 'self' 'wasm-unsafe-eval'``) if it sends
biji's content security policy.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.templatetags.static import static
from django.test import Client
from django.urls import get_script_prefix, reverse, set_script_prefix
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext

from blog.models import Language, Note
from blog.search.glossary import MAX_SPELLINGS, load_glossary
from blog.search.ranked import hidden_by_pairs

# The indexes, by the language of the notes in them, with the prefix of that interface; of a
# note's page Pagefind reads the article.
INDEXES = (("zh-hans", ""), ("en", "en"))
ROOT_SELECTOR = "article.note"
# Not the note's own words: its series and part, dates and reading time, the translation's title,
# the contents (the headings are read where they stand), glossary tooltips, a translation's
# source credit. Its title and tags stay, as the live search matches them.
EXCLUDED = ".note-kicker, .note-meta, .translation-link, .toc, .term-tip, .source-box"
BUNDLE = "pagefind"
# The benchmark site's 9,406 published notes take ~29 s (both runs at once on two busy cores). A
# run that takes longer than this is stopped and the last indexes are kept.
TIMEOUT_SECONDS = 600
PER_PAGE = 20
DATA = "search/data.json"
# Pagefind's own search interfaces, which the search pages do not use (~420 KB per index).
UNUSED = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-highlight.js",
)

# While a query's results load: no examples, and the results' place a screen high, so that
# nothing shown moves when they arrive (Lighthouse's layout shift). The CSP allows inline style.
SEARCHING_STYLE = (
    ".static-searching main > .search-empty { display: none; }"
    " .static-searching #static-search { min-height: 100vh; }"
)

_MAIN = re.compile(r"(<main\b[^>]*>)(.*?)(</main>)", re.S)
_INTRO_END = re.compile(r"(<div class=\"page-intro search-intro\">.*?</div>)", re.S)
_HEAD_END = "</head>"
_ARTICLE = re.compile(r'<article class="note"[^>]*>')
_NOTE_LANGUAGE = re.compile(r'<h1 id="note-title" lang="([^"]+)"')


class SearchIndexError(RuntimeError):
    """Pagefind failed, timed out or could not be started: the folder keeps its last index."""


def add_search(folder: Path, manifest=None) -> dict:
    """Index ``folder`` with Pagefind and write its two static search pages.

    Returns what was done: the pages written (paths relative to ``folder``), the languages
    indexed with their page counts, the index's size in bytes and the seconds Pagefind took.
    ``manifest``, when the build passes one as a dict, gets the same under ``"search"``.
    """
    folder = Path(folder)
    started = time.monotonic()
    languages = run_pagefind(folder)
    seconds = time.monotonic() - started
    written = [write_search_data(folder), *write_search_pages(folder, list(languages))]
    summary = {
        "pages": written,
        "languages": languages,
        "index_bytes": _size(folder / BUNDLE),
        "seconds": round(seconds, 2),
    }
    if isinstance(manifest, dict):
        manifest["search"] = summary
    return summary


# --- the index ------------------------------------------------------------------------------


def note_pages(folder: Path) -> dict[str, list[Path]]:
    """The note pages to index, by the language of their notes: each note once, from the
    interface of its own language (its Chinese page for a Chinese note, its English page for an
    English one), {"zh-hans": [...], "en": [...]}, the paths relative to ``folder``."""
    pages = {language: [] for language, _prefix in INDEXES}
    for page in sorted(folder.glob("notes/*/index.html")):
        match = _NOTE_LANGUAGE.search(page.read_text("utf-8", errors="replace"))
        if match is None:
            continue
        language = "zh-hans" if match.group(1).lower().startswith("zh") else "en"
        prefix = dict(INDEXES)[language]
        source = folder / prefix / page.relative_to(folder) if prefix else page
        if source.is_file():
            pages[language].append(source.relative_to(folder))
    return pages


def pagefind_command(site: Path, output: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pagefind",
        "--site",
        str(site),
        "--output-path",
        str(output),
        "--root-selector",
        ROOT_SELECTOR,
        "--exclude-selectors",
        EXCLUDED,
        "--silent",
    ]


def run_pagefind(folder: Path, timeout: float = TIMEOUT_SECONDS, hidden=None) -> dict:
    """Pagefind over the note pages of ``folder``, one index per note language, into
    ``folder/pagefind/<language>/``: {language: pages indexed}.

    Each language's pages are hard-linked into a staging folder of their own under
    ``notes/<slug>/index.html`` (so every result's URL is ``/notes/<slug>/``, which a search page
    puts under its own interface's prefix) and indexed by a Pagefind of their own, both at once.
    A note an interface leaves out for its translation (``hidden``: :func:`hidden_in`) is
    staged as a copy carrying a Pagefind filter, ``hidden:<interface language>``, which that
    interface's search page excludes.
    """
    if hidden is None:
        hidden = hidden_in()
    final = folder / BUNDLE
    # Inside the folder: the same file system for the hard links and the final rename.
    work = folder / f".pagefind-work-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    fresh = work / "bundle"
    runs = {}
    try:
        for language, pages in note_pages(folder).items():
            if not pages:
                continue
            stage = work / "stage" / language
            for page in pages:
                slug = page.parent.name
                target = stage / "notes" / slug / "index.html"
                target.parent.mkdir(parents=True, exist_ok=True)
                if slug in hidden:
                    target.write_text(_with_hidden_filter(folder / page, hidden[slug]), "utf-8")
                    continue
                try:
                    os.link(folder / page, target)
                except OSError:
                    shutil.copyfile(folder / page, target)
            log = work / f"{language}.log"
            runs[language] = _start(pagefind_command(stage, fresh / language), log)
        deadline = time.monotonic() + timeout
        for language, run in runs.items():
            _finish(run, max(0.0, deadline - time.monotonic()), timeout, work / f"{language}.log")
        languages = {}
        for language in runs:
            for unused in UNUSED:
                (fresh / language / unused).unlink(missing_ok=True)
            entry = json.loads((fresh / language / "pagefind-entry.json").read_text("utf-8"))
            languages[language] = sum(i.get("page_count", 0) for i in entry["languages"].values())
        fresh.mkdir(parents=True, exist_ok=True)
        if final.exists():
            final.rename(work / "old")
        fresh.rename(final)
        return languages
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()
        shutil.rmtree(work, ignore_errors=True)


def _with_hidden_filter(page: Path, languages) -> str:
    """The page with ``hidden:<language>`` filters inside its article (Pagefind reads the
    value from the attribute; the element holds nothing)."""
    text = page.read_text("utf-8")
    marks = "".join(
        f'<span data-pagefind-filter="hidden:{language}"></span>' for language in languages
    )
    article = _ARTICLE.search(text)
    return text[: article.end()] + marks + text[article.end() :] if article else text


def _start(command, log: Path):
    """Pagefind, its output to ``log`` (a file: a pipe nobody reads while the other run is
    waited for could fill and stop it)."""
    try:
        with log.open("wb") as out:
            # This interpreter running Pagefind over the build's own folders.
            return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603
    except OSError as error:
        raise SearchIndexError(f"Pagefind could not start: {error}") from error


def _finish(run, left: float, timeout: float, log: Path):
    try:
        run.wait(timeout=left)
    except subprocess.TimeoutExpired as error:
        raise SearchIndexError(f"Pagefind took more than {timeout:g} s: stopped") from error
    if run.returncode != 0:
        output = log.read_text("utf-8", errors="replace").strip()[-2000:]
        raise SearchIndexError(f"Pagefind failed ({run.returncode}): {output}")


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# --- the glossary and the translated pairs ----------------------------------------------------


def write_search_data(folder: Path) -> str:
    """``search/data.json``: every glossary term's forms of two or more (``"terms"``:
    ``[[[text, lang], …], …]``) and how many a query expands to at most (``"max"``)."""
    terms = [
        [[form.text, "en" if form.language == Language.ENGLISH else "zh-Hans"] for form in forms]
        for forms in load_glossary().terms
        if len(forms) > 1
    ]
    target = folder / DATA
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"max": MAX_SPELLINGS, "terms": terms}, ensure_ascii=False)
    target.write_text(text, "utf-8")
    return DATA


def hidden_in() -> dict[str, list[str]]:
    """{slug: the interface languages whose search leaves the note out}: a note whose
    translation is published in an interface's language is shown as its translation there
    (``blog.search.ranked.hidden_by_pairs``, as the live search does)."""
    hidden = hidden_by_pairs()
    notes = Note.objects.filter(pk__in=set().union(*hidden.values()))
    slugs = dict(notes.values_list("pk", "slug"))
    found = {}
    for language, ids in sorted(hidden.items()):
        for pk in ids:
            if pk in slugs:
                found.setdefault(slugs[pk], []).append(language)
    return found


# --- the search pages -----------------------------------------------------------------------


def write_search_pages(folder: Path, indexed: list[str]) -> list[str]:
    """The live search page of each language, made to search the static indexes ``indexed``
    (the languages Pagefind indexed notes of).

    The site may be served under a path (``SITE_URL`` ``https://user.github.io/blog``, as the
    build sets it while it runs): the page is asked for as a server passing that path as
    ``SCRIPT_NAME`` would, and the indexes' and results' addresses carry it too."""
    client, extra = _client()
    prefix = extra.get("SCRIPT_NAME", "")
    written = []
    for language in ("zh-hans", "en"):
        with translation.override(language):
            # As a server under the path sets it for the request (the test client does not).
            before = get_script_prefix()
            set_script_prefix(prefix + "/")
            try:
                path = _unprefixed(reverse("blog:search"))
                home = _unprefixed(reverse("blog:home"))
                response = client.get(path, **extra)
            finally:
                set_script_prefix(before)
            if response.status_code != 200:
                raise SearchIndexError(f"{path} answered {response.status_code}")
            own_first = sorted(indexed, key=lambda indexed_language: indexed_language != language)
            page = static_search_page(
                response.content.decode(response.charset or "utf-8"), own_first, prefix, home
            )
        target = folder / path.strip("/") / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, "utf-8")
        written.append(target.relative_to(folder).as_posix())
    return written


def _unprefixed(path: str) -> str:
    """``path`` (from ``reverse``) without the script prefix a build under a path sets."""
    return "/" + path[len(get_script_prefix()) :] if path.startswith(get_script_prefix()) else path


def _client() -> tuple[Client, dict]:
    """An anonymous reader of ``SITE_URL``, and what each request adds (its path as
    ``SCRIPT_NAME``)."""
    site = urlsplit(settings.SITE_URL)
    host = site.netloc or next(
        (h for h in settings.ALLOWED_HOSTS if h and "*" not in h and not h.startswith(".")),
        "localhost",
    )
    secure = site.scheme == "https" or settings.SECURE_SSL_REDIRECT
    client = Client(HTTP_HOST=host, secure=secure, raise_request_exception=True)
    prefix = site.path.rstrip("/")
    return client, {"SCRIPT_NAME": prefix} if prefix else {}


def static_search_page(live: str, languages, prefix: str = "", home: str = "/") -> str:
    """The live search page without a query (``live``) with the results region and the script
    that fills it, in the active language; ``languages``: the indexes there are, the interface
    language's first; ``prefix``: the path the site is served under; ``home``: the interface's
    home page (``/``, ``/en/``), under which results are linked."""
    main = _MAIN.search(live)
    if main is None:
        raise SearchIndexError("the live search page has no <main>")
    bundles = [
        {"url": f"{prefix}/{BUNDLE}/{language}/", "lang": "en" if language == "en" else "zh-Hans"}
        for language in languages
    ]
    region = _results_region(bundles, prefix, home)
    content = main.group(2)
    intro = _INTRO_END.search(content)
    if intro is None:
        raise SearchIndexError("the live search page has no search intro")
    content = content[: intro.end()] + region + content[intro.end() :]
    page = live[: main.start(2)] + content + live[main.end(2) :]
    # The script beside the page's own: whatever the page puts before the static URL (a path
    # prefix, a host) goes before this one's too.
    site_js = re.search(f'src="([^"]*){re.escape(static("js/site.js"))}"', page)
    src = (site_js.group(1) if site_js else "") + static("js/static-search.js")
    # Not deferred: it marks a page with a query before the first paint (static-search.js).
    head = f'    <style>{SEARCHING_STYLE}</style>\n    <script src="{html.escape(src)}"></script>\n'
    head_end = page.index(_HEAD_END)
    return page[:head_end] + head + "  " + page[head_end:]


def _before_text(label: str) -> str:
    """A label ending in a colon before text, as blog_tags.before_text writes it: a space after
    it unless its colon is a full-width one."""
    return label if label.endswith(tuple("：，。；！？、")) else label + " "


def _results_region(bundles: list[dict], prefix: str, home: str) -> str:
    """The results' place: the count (a polite live region), the list and the pagination the
    script fills, with the messages it needs in the page's language as data attributes."""
    messages = {
        "bundles": json.dumps(bundles),
        "base-url": prefix + home,
        "data": f"{prefix}/{DATA}",
        "interface": translation.get_language(),  # the value of the pages' "hidden" filter
        "also": _before_text(gettext("Also searched for:")),
        "list-separator": pgettext("between the parts of a list", ", "),
        "per-page": str(PER_PAGE),
        "title": gettext("Search results for “%(query)s”"),
        "found-one": ngettext("%(counter)s note found.", "%(counter)s notes found.", 1),
        "found-other": ngettext("%(counter)s note found.", "%(counter)s notes found.", 2),
        "none": gettext("No published note has all of these words."),
        "none-hint": gettext(
            "Try fewer words, another spelling, or the word in the other language."
        ),
        "pages": pgettext("pagination landmark", "Pages"),
        "previous": gettext("Previous page"),
        "next": gettext("Next page"),
        "page-of": gettext("Page %(number)s of %(total)s"),
    }
    attributes = " ".join(f'data-{name}="{html.escape(value)}"' for name, value in messages.items())
    return (
        f'\n  <div id="static-search" class="static-search" {attributes}>'
        '<p class="search-count" id="search-status" role="status"></p>'
        '<ol class="note-list search-results" id="search-results" hidden></ol>'
        '<div id="search-pages"></div></div>'
    )
