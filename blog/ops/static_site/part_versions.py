"""The versions of the parts each built page shows, which make a build incremental: a page is
rendered again only when one of its parts moved since it was written.

A page's parts are the names in its ``xkey`` header (the page cache's, blog/caching/parts.py);
their versions are read with :func:`blog.caching.version.current_with_parts` once a batch of
pages is rendered, and kept only if the content did not change meanwhile (a page rendered while
a note was saved may show either version: unknown, so rendered again next time).
"""

from blog.caching import version

NAMES_PER_QUERY = 900  # parts' names in one query (SQLite's older limit is 999 parameters)
UNKNOWN = -1  # a version no part has: the page is rendered again next time


def moved_pages(pages):
    """The URLs of ``pages`` (the manifest's: url -> record with its ``parts``) whose parts'
    versions moved since they were rendered, sorted."""
    names = sorted({name for record in pages.values() for name in record["parts"]})
    now = {}
    for start in range(0, len(names), NAMES_PER_QUERY):
        _state, versions = version.current_with_parts(names[start : start + NAMES_PER_QUERY])
        now.update(versions)
    moved = [
        url
        for url, record in pages.items()
        if not record["parts"]
        or any(now.get(name) != number for name, number in record["parts"].items())
    ]
    return sorted(moved)


def settle(pages, batch, before):
    """Record in ``pages`` the versions of the parts the pages of ``batch`` show: read after
    they were rendered, and kept only if nothing changed since ``before`` (the state when the
    batch began); otherwise they stay unknown, so the next build renders them again.

    Returns the state read now (the next batch's ``before``) and whether the content moved."""
    names = sorted({name for url in batch if url in pages for name in pages[url]["parts"]})
    versions, states = {}, []
    for start in range(0, len(names), NAMES_PER_QUERY):
        state, found = version.current_with_parts(names[start : start + NAMES_PER_QUERY])
        versions.update(found)
        states.append(state)
    after = states[-1] if states else version.current()
    moved = any(
        (s.version, s.schedule_key) != (before.version, before.schedule_key)
        for s in [*states, after]
    )
    if not moved:
        for url in batch:
            record = pages.get(url)
            if record is not None:
                record["parts"] = {name: versions.get(name, 0) for name in record["parts"]}
    return after, moved
