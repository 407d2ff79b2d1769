"""The search index becomes the ``SearchDocument`` model; each database gets its own index on it.

1. 0002's raw side table and its FTS5 tables (SQLite) or GIN indexes and function (PostgreSQL)
   are dropped. Going back below this migration does not bring them back empty-handed: 0002's
   reverse drops them "if exists", and code that old would need ``rebuild_search_index``.
2. The model's table is created.
3. SQLite: FTS5 tables kept in step by triggers. PostgreSQL: pg_trgm and GIN indexes,
   declared with ``GinIndex``/``OpClass``. Not in ``Meta.indexes``, which apply to every
   database (SQLite has no GIN), so the model state does not know them: only this migration.

Self-contained: no live code, so this still runs the same when blog.search has changed. It
does not fill the index (documents are built by live code): ``migrate`` does that afterwards,
through the ``post_migrate`` receiver ``blog.search.index.rebuild_if_incomplete``.
"""

import sqlite3

import django.db.models.deletion
from django.contrib.postgres.indexes import GinIndex
from django.db import migrations, models

OLD_SQLITE = [
    "DROP TABLE IF EXISTS blog_search_fts",
    "DROP TABLE IF EXISTS blog_search_head",
    "DROP TABLE IF EXISTS blog_search_grams",
    "DROP TABLE IF EXISTS blog_search_document",  # and its triggers
]
OLD_POSTGRESQL = [
    "DROP TABLE IF EXISTS blog_search_document",  # and its indexes
    "DROP FUNCTION IF EXISTS blog_search_units(text)",
]


def drop_old_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": OLD_SQLITE, "postgresql": OLD_POSTGRESQL}.get(vendor, []):
        schema_editor.execute(sql)


# SQLite: FTS5 with external content (the rows live once, in blog_searchdocument).
SQLITE = [
    # Substrings of three characters or more, in any script: trigram tokenizer.
    """
    CREATE VIRTUAL TABLE blog_search_fts USING fts5(
        text, content='blog_searchdocument', content_rowid='note_id', tokenize='trigram'
    )
    """,
    # The same for title and tags alone: "is it in the title" for every match of a common
    # term, without reading the body's long position lists.
    """
    CREATE VIRTUAL TABLE blog_search_head USING fts5(
        title, tags, content='blog_searchdocument', content_rowid='note_id', tokenize='trigram'
    )
    """,
    # One or two CJK characters, and words of one or two letters: whole tokens. Columns but
    # no positions are recorded (detail=column): enough for "in the title" and far smaller.
    """
    CREATE VIRTUAL TABLE blog_search_grams USING fts5(
        title_grams, tag_grams, grams,
        content='blog_searchdocument', content_rowid='note_id',
        tokenize='unicode61 remove_diacritics 0', detail='column'
    )
    """,
    """
    CREATE TRIGGER blog_searchdocument_ai AFTER INSERT ON blog_searchdocument BEGIN
        INSERT INTO blog_search_fts(rowid, text) VALUES (new.note_id, new.text);
        INSERT INTO blog_search_head(rowid, title, tags) VALUES (new.note_id, new.title, new.tags);
        INSERT INTO blog_search_grams(rowid, title_grams, tag_grams, grams)
            VALUES (new.note_id, new.title_grams, new.tag_grams, new.grams);
    END
    """,
    """
    CREATE TRIGGER blog_searchdocument_ad AFTER DELETE ON blog_searchdocument BEGIN
        INSERT INTO blog_search_fts(blog_search_fts, rowid, text)
            VALUES ('delete', old.note_id, old.text);
        INSERT INTO blog_search_head(blog_search_head, rowid, title, tags)
            VALUES ('delete', old.note_id, old.title, old.tags);
        INSERT INTO blog_search_grams(blog_search_grams, rowid, title_grams, tag_grams, grams)
            VALUES ('delete', old.note_id, old.title_grams, old.tag_grams, old.grams);
    END
    """,
    """
    CREATE TRIGGER blog_searchdocument_au AFTER UPDATE ON blog_searchdocument BEGIN
        INSERT INTO blog_search_fts(blog_search_fts, rowid, text)
            VALUES ('delete', old.note_id, old.text);
        INSERT INTO blog_search_head(blog_search_head, rowid, title, tags)
            VALUES ('delete', old.note_id, old.title, old.tags);
        INSERT INTO blog_search_grams(blog_search_grams, rowid, title_grams, tag_grams, grams)
            VALUES ('delete', old.note_id, old.title_grams, old.tag_grams, old.grams);
        INSERT INTO blog_search_fts(rowid, text) VALUES (new.note_id, new.text);
        INSERT INTO blog_search_head(rowid, title, tags) VALUES (new.note_id, new.title, new.tags);
        INSERT INTO blog_search_grams(rowid, title_grams, tag_grams, grams)
            VALUES (new.note_id, new.title_grams, new.tag_grams, new.grams);
    END
    """,
]
# Triggers and PostgreSQL's indexes go with the table; FTS5 tables are tables of their own.
SQLITE_DROP = [
    "DROP TABLE IF EXISTS blog_search_fts",
    "DROP TABLE IF EXISTS blog_search_head",
    "DROP TABLE IF EXISTS blog_search_grams",
]


# PostgreSQL: LIKE '%term%' on these columns is answered by their trigram index. The n-gram
# columns are padded with spaces, so ' 调度 ' and ' 3 ' have trigrams of their own.


def _trigram_index(column, name):
    # opclasses=, not OpClass(): an OpClass expression is only rendered as an operator class
    # when django.contrib.postgres is installed (its ready() registers it); this needs nothing.
    return GinIndex(fields=[column], opclasses=["gin_trgm_ops"], name=name)


POSTGRESQL_INDEXES = [
    _trigram_index("text", "blog_search_text_trgm"),
    _trigram_index("grams", "blog_search_grams_trgm"),
    _trigram_index("title", "blog_search_title_trgm"),
    _trigram_index("tags", "blog_search_tags_trgm"),
    _trigram_index("title_grams", "blog_search_title_grams_trgm"),
    _trigram_index("tag_grams", "blog_search_tag_grams_trgm"),
]


def create_database_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        if sqlite3.sqlite_version_info < (3, 34, 0):
            raise RuntimeError(
                f"biji's search needs SQLite 3.34 or newer (FTS5 trigram tokenizer); "
                f"this Python has SQLite {sqlite3.sqlite_version}."
            )
        for sql in SQLITE:
            schema_editor.execute(sql)
    elif vendor == "postgresql":
        # Not TrigramExtension(): its reverse runs on SQLite too, and would drop pg_trgm, which
        # 0002 created and other tables may use. Created if missing, and left in place.
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        model = apps.get_model("blog", "SearchDocument")
        for index in POSTGRESQL_INDEXES:
            schema_editor.add_index(model, index)


def drop_database_index(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in SQLITE_DROP:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("blog", "0003_note_ordering_series_markdown")]

    operations = [
        migrations.RunPython(drop_old_index, migrations.RunPython.noop),
        migrations.CreateModel(
            name="SearchDocument",
            fields=[
                (
                    "note",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="blog.note",
                    ),
                ),
                ("title", models.TextField(default="")),
                ("tags", models.TextField(default="")),
                ("text", models.TextField(default="")),
                ("title_grams", models.TextField(default=" ")),
                ("tag_grams", models.TextField(default=" ")),
                ("grams", models.TextField(default=" ")),
            ],
            options={"default_permissions": ()},
        ),
        migrations.RunPython(create_database_index, drop_database_index),
    ]
