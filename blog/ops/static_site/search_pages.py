"""The two static search pages and the data they read beside Pagefind's indexes
(:mod:`.search_index`): what they show and search with.

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
"""

import html
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.templatetags.static import static
from django.test import Client
from django.urls import get_script_prefix, reverse, set_script_prefix
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext

from blog.models import Language
from blog.ops.static_site.search_index import BUNDLE, SearchIndexError
from blog.search.glossary import MAX_SPELLINGS, load_glossary

PER_PAGE = 20
DATA = "search/data.json"

# While a query's results load: no examples, and the results' place a screen high, so that
# nothing shown moves when they arrive (Lighthouse's layout shift). The CSP allows inline style.
SEARCHING_STYLE = (
    ".static-searching main > .search-empty { display: none; }"
    " .static-searching #static-search { min-height: 100vh; }"
)

_MAIN = re.compile(r"(<main\b[^>]*>)(.*?)(</main>)", re.S)
_INTRO_END = re.compile(r"(<div class=\"page-intro search-intro\">.*?</div>)", re.S)
_HEAD_END = "</head>"


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
