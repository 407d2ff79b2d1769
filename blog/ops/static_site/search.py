"""Search without a server: Pagefind's indexes of the built site, and the two search pages that
read them in the browser (issue 37).

``add_search(folder, manifest)`` runs last in a build, over the folder the crawl wrote: Pagefind
indexes each published note once, in the index of its language (:mod:`.search_index`: what is
indexed and the run), then the search pages and their glossary data are written
(:mod:`.search_pages`: the live search page with a results region that
``static/js/static-search.js`` fills).

What differs from the live search (blog/search/): Pagefind matches words and word prefixes, not
substrings (a Chinese word its segmenter keeps inside a longer word is not found, nor a single
character; an English word is found by its stem); it ranks by its own BM25, not title, then
tags, then body; a query's word that is in no note at all is dropped instead of finding nothing;
a quoted Chinese phrase is searched as its words; a glossary form is expanded only when it is
the whole query (the live search expands each of its words); no cap on the query or its time.
A static host must allow WebAssembly (``script-src 'self' 'wasm-unsafe-eval'``) if it sends
biji's content security policy.
"""

import time
from pathlib import Path

from blog.ops.static_site.search_index import BUNDLE, SearchIndexError, run_pagefind
from blog.ops.static_site.search_pages import write_search_data, write_search_pages

# What callers (the build, the tests) use.
__all__ = ["SearchIndexError", "add_search", "run_pagefind", "write_search_pages"]


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


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
