"""Search: CJK-aware full-text search over published notes, on SQLite and PostgreSQL
(docs/architecture.md lists each module).

May import: :mod:`blog.models`, :mod:`blog.text`.
"""
