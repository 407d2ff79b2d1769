"""PostgreSQL: every search document gets its note's order key (0023 left the existing rows'
to their next indexing), and a B-tree index over it, so a search walks the matches newest first
and stops after a results list (blog.search.newest_first). SQLite's FTS5 tables already use
the key as their rowid: nothing changes there.

Self-contained: the key's rule is written out below as SQL, as blog.search.order has it today.
"""

from django.db import migrations

ID_BITS = 30
SECONDS = (1 << 32) - 1
UNPUBLISHED = -(1 << 62)
INDEX = "blog_search_order_key"

POSTGRES_KEYS = f"""
UPDATE blog_searchdocument AS d SET order_key = CASE
    WHEN n.status = 'published' AND n.published_at IS NOT NULL
    THEN (GREATEST(-{SECONDS}, LEAST({SECONDS}, FLOOR(EXTRACT(EPOCH FROM n.published_at))))::bigint
          << {ID_BITS}) + n.id
    ELSE {UNPUBLISHED} + n.id END
FROM blog_note AS n WHERE n.id = d.note_id AND d.order_key IS NULL
"""


def add_keys(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_KEYS)
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON blog_searchdocument (order_key)")


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("blog", "0023_search_order_key")]

    operations = [migrations.RunPython(add_keys, drop_index)]
