"""Search: CJK-aware full-text search over published notes, on SQLite and PostgreSQL.

* :mod:`.text`: folding, query parsing, the indexed document (pure functions);
* :mod:`.glossary`: a query's words that are glossary forms, grouped with the term's other
  forms (search across both languages);
* :mod:`.highlight`: highlighted titles and snippets of results (pure functions);
* :mod:`.backends`: the conditions that match and rank notes, per database (ORM);
* :mod:`.sql`: the only SQL written by hand, for what Django has no API for (FTS5, ANALYZE);
* :mod:`.index`: keeping the index (:class:`blog.models.SearchDocument`, one row per note)
  in step with notes and tags, and rebuilding it;
* :mod:`.query`: ranked ids and a page of results, used by the search page
  (:mod:`blog.public.views.search`) and the benchmark;
* :mod:`.receivers`: the signal receivers, connected by :mod:`blog.reactions`.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""
