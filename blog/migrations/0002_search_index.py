"""The first search index: a raw side table of folded text per note and each database's index.

History: 0004_searchdocument drops all of it and replaces it with the ``SearchDocument`` model.
Kept, self-contained, because deployments have it applied. It no longer fills the table (that
needed live code, and 0004 drops the rows anyway): notes are indexed after ``migrate`` (see
``blog.search.index.rebuild_if_incomplete``).
"""

import sqlite3

from django.db import migrations

SQLITE = [
    """
    CREATE TABLE blog_search_document (
        note_id INTEGER PRIMARY KEY,  -- blog_note.id; no foreign key, so flush still works
        title TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '',
        title_grams TEXT NOT NULL DEFAULT ' ',
        tag_grams TEXT NOT NULL DEFAULT ' ',
        grams TEXT NOT NULL DEFAULT ' ',
        body TEXT NOT NULL DEFAULT ''
    )
    """,
    # Substrings of three characters or more, in any script: trigram tokenizer.
    """
    CREATE VIRTUAL TABLE blog_search_fts USING fts5(
        title, tags, body,
        content='blog_search_document', content_rowid='note_id',
        tokenize='trigram'
    )
    """,
    # The same for title and tags alone: "is it in the title" for every match of a common
    # term, without reading the body's long position lists.
    """
    CREATE VIRTUAL TABLE blog_search_head USING fts5(
        title, tags,
        content='blog_search_document', content_rowid='note_id',
        tokenize='trigram'
    )
    """,
    # One or two CJK characters, and words of one or two letters: whole tokens. Columns but
    # no positions are recorded (detail=column): enough for "in the title" and far smaller.
    """
    CREATE VIRTUAL TABLE blog_search_grams USING fts5(
        title_grams, tag_grams, grams,
        content='blog_search_document', content_rowid='note_id',
        tokenize='unicode61 remove_diacritics 0', detail='column'
    )
    """,
    """
    CREATE TRIGGER blog_search_document_ai AFTER INSERT ON blog_search_document BEGIN
        INSERT INTO blog_search_fts(rowid, title, tags, body)
            VALUES (new.note_id, new.title, new.tags, new.body);
        INSERT INTO blog_search_head(rowid, title, tags) VALUES (new.note_id, new.title, new.tags);
        INSERT INTO blog_search_grams(rowid, title_grams, tag_grams, grams)
            VALUES (new.note_id, new.title_grams, new.tag_grams, new.grams);
    END
    """,
    """
    CREATE TRIGGER blog_search_document_ad AFTER DELETE ON blog_search_document BEGIN
        INSERT INTO blog_search_fts(blog_search_fts, rowid, title, tags, body)
            VALUES ('delete', old.note_id, old.title, old.tags, old.body);
        INSERT INTO blog_search_head(blog_search_head, rowid, title, tags)
            VALUES ('delete', old.note_id, old.title, old.tags);
        INSERT INTO blog_search_grams(blog_search_grams, rowid, title_grams, tag_grams, grams)
            VALUES ('delete', old.note_id, old.title_grams, old.tag_grams, old.grams);
    END
    """,
    """
    CREATE TRIGGER blog_search_document_au AFTER UPDATE ON blog_search_document BEGIN
        INSERT INTO blog_search_fts(blog_search_fts, rowid, title, tags, body)
            VALUES ('delete', old.note_id, old.title, old.tags, old.body);
        INSERT INTO blog_search_head(blog_search_head, rowid, title, tags)
            VALUES ('delete', old.note_id, old.title, old.tags);
        INSERT INTO blog_search_grams(blog_search_grams, rowid, title_grams, tag_grams, grams)
            VALUES ('delete', old.note_id, old.title_grams, old.tag_grams, old.grams);
        INSERT INTO blog_search_fts(rowid, title, tags, body)
            VALUES (new.note_id, new.title, new.tags, new.body);
        INSERT INTO blog_search_head(rowid, title, tags) VALUES (new.note_id, new.title, new.tags);
        INSERT INTO blog_search_grams(rowid, title_grams, tag_grams, grams)
            VALUES (new.note_id, new.title_grams, new.tag_grams, new.grams);
    END
    """,
]
SQLITE_DROP = [
    "DROP TABLE IF EXISTS blog_search_fts",
    "DROP TABLE IF EXISTS blog_search_head",
    "DROP TABLE IF EXISTS blog_search_grams",
    "DROP TABLE IF EXISTS blog_search_document",  # drops its triggers
]

POSTGRESQL = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    """
    CREATE TABLE blog_search_document (
        note_id bigint PRIMARY KEY,  -- blog_note.id; no foreign key, so flush still works
        title text NOT NULL DEFAULT '',
        tags text NOT NULL DEFAULT '',
        title_grams text NOT NULL DEFAULT ' ',
        tag_grams text NOT NULL DEFAULT ' ',
        grams text NOT NULL DEFAULT ' ',
        body text NOT NULL DEFAULT ''
    ) WITH (parallel_workers = 0)  -- see below
    """,
    # An n-gram column as an array. A function rather than the bare expression, so that its
    # cost can be declared: else, when a common character matches half of the notes, the
    # planner would split every row's long string (a parallel scan made that look cheap, hence
    # no parallel workers) instead of reading the GIN index, 10-20 times slower.
    """
    CREATE FUNCTION blog_search_units(text) RETURNS text[]
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000
        AS $$ BEGIN RETURN string_to_array($1, ' '); END $$
    """,
    # Queries must repeat these expressions exactly (blog/search/backends.py).
    """
    CREATE INDEX blog_search_document_trgm ON blog_search_document
        USING gin ((title || E'\\n' || tags || E'\\n' || body) gin_trgm_ops)
    """,
    """
    CREATE INDEX blog_search_document_grams ON blog_search_document
        USING gin (blog_search_units(grams))
    """,
    # Ranking: "is the term in the title / a tag" for every match, from small indexes.
    "CREATE INDEX blog_search_title_trgm ON blog_search_document USING gin (title gin_trgm_ops)",
    "CREATE INDEX blog_search_tags_trgm ON blog_search_document USING gin (tags gin_trgm_ops)",
    """
    CREATE INDEX blog_search_title_grams ON blog_search_document
        USING gin (blog_search_units(title_grams))
    """,
    """
    CREATE INDEX blog_search_tag_grams ON blog_search_document
        USING gin (blog_search_units(tag_grams))
    """,
]
POSTGRESQL_DROP = [
    "DROP TABLE IF EXISTS blog_search_document",
    "DROP FUNCTION IF EXISTS blog_search_units(text)",
    # pg_trgm stays: other tables may use it
]


def create_search_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        if sqlite3.sqlite_version_info < (3, 34, 0):
            raise RuntimeError(
                f"biji's search needs SQLite 3.34 or newer (FTS5 trigram tokenizer); "
                f"this Python has SQLite {sqlite3.sqlite_version}."
            )
        statements = SQLITE
    elif vendor == "postgresql":
        statements = POSTGRESQL
    else:
        return
    for sql in statements:
        schema_editor.execute(sql)


def drop_search_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {"sqlite": SQLITE_DROP, "postgresql": POSTGRESQL_DROP}.get(vendor, [])
    for sql in statements:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("blog", "0001_initial")]

    operations = [migrations.RunPython(create_search_index, drop_search_index)]
