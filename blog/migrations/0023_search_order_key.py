"""Each search document gets its note's order key (blog.search.order: publication time to the
second, then id in the low 30 bits; drafts below every published note), and SQLite's FTS5
tables use it as their rowid, so a match list comes newest first (docs/performance.md, "Growing
to 100,000 notes"). The keys of existing rows are computed here in SQL, the FTS5 tables made
again over them. PostgreSQL reads no key: its rows get theirs when next indexed, rather than
rewriting every row and its seven GIN indexes here.

Self-contained: the key's rule is written out below as SQL, as blog.search.order has it today.
"""

from django.db import migrations, models

ID_BITS = 30
SECONDS = (1 << 32) - 1
UNPUBLISHED = -(1 << 62)

# '%%s': Django's SQLite cursor turns a lone '%s' into a parameter's '?'.
SQLITE_KEYS = f"""
UPDATE blog_searchdocument SET order_key = COALESCE((
    SELECT CASE WHEN n.status = 'published' AND n.published_at IS NOT NULL
        THEN (MAX(-{SECONDS}, MIN({SECONDS}, CAST(strftime('%%s', n.published_at) AS INTEGER)))
              << {ID_BITS}) + n.id
        ELSE {UNPUBLISHED} + n.id END
    FROM blog_note n WHERE n.id = blog_searchdocument.note_id
), {UNPUBLISHED} + note_id)
"""
# Each FTS5 table and its columns, as the triggers keep them in step with the content table.
_COLUMNS = {
    "blog_search_fts": ("text",),
    "blog_search_head": ("title", "tags"),
    "blog_search_grams": ("title_grams", "tag_grams", "grams"),
}


def _insert(rowid):
    """The statements adding the new row to each FTS5 table."""
    return " ".join(
        f"INSERT INTO {table}(rowid, {', '.join(columns)}) "
        f"VALUES (new.{rowid}, {', '.join('new.' + c for c in columns)});"
        for table, columns in _COLUMNS.items()
    )


def _delete(rowid):
    """The statements taking the old row out of each FTS5 table (external content: FTS5 is
    told the old values)."""
    return " ".join(
        f"INSERT INTO {table}({table}, rowid, {', '.join(columns)}) "
        f"VALUES ('delete', old.{rowid}, {', '.join('old.' + c for c in columns)});"
        for table, columns in _COLUMNS.items()
    )


def _fts_tables(rowid):
    """0004's FTS5 tables and triggers, over the content table's ``rowid`` column."""
    return [
        f"""CREATE VIRTUAL TABLE blog_search_fts USING fts5(
            text, content='blog_searchdocument', content_rowid='{rowid}', tokenize='trigram')""",
        f"""CREATE VIRTUAL TABLE blog_search_head USING fts5(
            title, tags, content='blog_searchdocument', content_rowid='{rowid}',
            tokenize='trigram')""",
        f"""CREATE VIRTUAL TABLE blog_search_grams USING fts5(
            title_grams, tag_grams, grams, content='blog_searchdocument', content_rowid='{rowid}',
            tokenize='unicode61 remove_diacritics 0', detail='column')""",
        f"CREATE TRIGGER blog_searchdocument_ai AFTER INSERT ON blog_searchdocument BEGIN "
        f"{_insert(rowid)} END",
        f"CREATE TRIGGER blog_searchdocument_ad AFTER DELETE ON blog_searchdocument BEGIN "
        f"{_delete(rowid)} END",
        f"CREATE TRIGGER blog_searchdocument_au AFTER UPDATE ON blog_searchdocument BEGIN "
        f"{_delete(rowid)} {_insert(rowid)} END",
        "INSERT INTO blog_search_fts(blog_search_fts) VALUES ('rebuild')",
        "INSERT INTO blog_search_head(blog_search_head) VALUES ('rebuild')",
        "INSERT INTO blog_search_grams(blog_search_grams) VALUES ('rebuild')",
    ]


_DROP = [
    "DROP TRIGGER IF EXISTS blog_searchdocument_ai",
    "DROP TRIGGER IF EXISTS blog_searchdocument_ad",
    "DROP TRIGGER IF EXISTS blog_searchdocument_au",
    "DROP TABLE IF EXISTS blog_search_fts",
    "DROP TABLE IF EXISTS blog_search_head",
    "DROP TABLE IF EXISTS blog_search_grams",
]


def _rekey(rowid):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "sqlite":
            return
        if rowid == "order_key":
            schema_editor.execute(SQLITE_KEYS)
        for sql in _DROP + _fts_tables(rowid):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("blog", "0022_tag_note_index")]

    operations = [
        # Nullable without a default: SQLite adds the column in place, keeping 0004's triggers
        # until they are made again below.
        migrations.AddField(
            model_name="searchdocument",
            name="order_key",
            field=models.BigIntegerField(null=True),
        ),
        migrations.RunPython(_rekey("order_key"), _rekey("note_id")),
    ]
