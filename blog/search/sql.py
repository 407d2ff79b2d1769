"""The SQL that search writes by hand, all of it: FTS5 ``MATCH`` subqueries, FTS5 commands and
``ANALYZE``, which Django has no API for. What readers type is bound, and quoted by
:func:`fts_string` inside FTS5 queries: never SQL or FTS5 syntax."""

from django.db.models.expressions import RawSQL

from blog.search.order import ID_MASK

FTS_TEXT = "blog_search_fts"  # text (title, tags, body), trigram tokenizer
FTS_HEAD = "blog_search_head"  # title and tags, trigram tokenizer
FTS_GRAMS = "blog_search_grams"  # title_grams, tag_grams, grams; unicode61 tokenizer

# Tables named in the SQL (a table name cannot be a bound parameter), from the constants above
# only. A row's rowid is its note's order key (blog.search.order): the note's id in its low bits.
_MATCH = {
    table: f"SELECT rowid & {ID_MASK} FROM {table} WHERE {table} MATCH %s"  # noqa: S608
    for table in (FTS_TEXT, FTS_HEAD, FTS_GRAMS)
}
_COMMAND = [
    "INSERT INTO blog_search_fts(blog_search_fts) VALUES (%s)",
    "INSERT INTO blog_search_head(blog_search_head) VALUES (%s)",
    "INSERT INTO blog_search_grams(blog_search_grams) VALUES (%s)",
]


def fts_string(text: str) -> str:
    """A term as an FTS5 string: never syntax, whatever it contains."""
    return '"' + text.replace('"', '""') + '"'


def fts_ids(table: str, fts_query: str) -> RawSQL:
    """The ids of the notes whose row matches ``fts_query`` in FTS5 table ``table``."""
    return RawSQL(_MATCH[table], [fts_query])  # noqa: S611 (the query is a bound parameter)


def fts_command(cursor, command: str) -> None:
    """Run an FTS5 command on every FTS5 table: 'rebuild' re-reads the content table,
    'optimize' merges each index into one segment."""
    for sql in _COMMAND:
        cursor.execute(sql, [command])


def analyze(cursor, table: str | None = None) -> None:
    """Fresh planner statistics (PostgreSQL): what autovacuum does soon after a bulk load."""
    cursor.execute(f"ANALYZE {cursor.db.ops.quote_name(table)}" if table else "ANALYZE")
