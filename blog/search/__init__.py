"""Search: CJK-aware full-text search over published notes, on SQLite and PostgreSQL.

* :mod:`.text`: folding, query parsing, the indexed document (pure functions);
* :mod:`.highlight`: highlighted titles and snippets of results (pure functions);
* :mod:`.models`: :class:`SearchDocument`, one row per note, and each database's index on it;
* :mod:`.backends`: the conditions that match and rank notes, per database (ORM);
* :mod:`.sql`: the only SQL written by hand, for what Django has no API for (FTS5, ANALYZE);
* :mod:`.index`: keeping the index in step with notes and tags, and rebuilding it;
* :mod:`.query`: ranked ids and a page of results, used by the view and the benchmark;
* :mod:`.views`: :class:`SearchView`, mounted as ``blog:search``.
"""


def __getattr__(name):
    # Imported on first use: blog.models imports .models while the app registry is loading,
    # which must not pull in the view (and through it forms, templates and other apps).
    if name == "SearchView":
        from .views import SearchView

        return SearchView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SearchView"]
