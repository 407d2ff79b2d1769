"""Search: CJK-aware full-text search over published notes, on SQLite and PostgreSQL.

* :mod:`.text`: folding, query parsing, the indexed document, snippets (pure functions);
* :mod:`.backends`: the SQL of each database's index (design notes there);
* :mod:`.index`: keeping the index in step with notes and tags, and rebuilding it;
* :mod:`.query`: ranked ids and a page of results, used by the view and the benchmark;
* :mod:`.views`: :class:`SearchView`, mounted as ``blog:search``.
"""

from .views import SearchView

__all__ = ["SearchView"]
