"""PostgreSQL: a GIN index of each search document's short units (its CJK characters and pairs,
its short words: the space-separated ``grams`` column as an array).

A Chinese term was looked for with ``grams LIKE '% 调度 %'``, which pg_trgm's index barely
narrows for one or two characters. The index is on ``biji_search_units(grams)``, a function
declared costly: on a plain ``string_to_array`` the planner, knowing a common character is in
most documents, read them all and split each (docs/performance.md, "Search on PostgreSQL").
SQLite's FTS5 tables already index the units; nothing changes there.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION biji_search_units(grams text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 10000
AS $$ BEGIN RETURN string_to_array(grams, ' '); END $$
"""
INDEX = "blog_search_units_gin"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION)
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON blog_searchdocument "
            "USING gin (biji_search_units(grams))"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")
        schema_editor.execute("DROP FUNCTION IF EXISTS biji_search_units(text)")


class Migration(migrations.Migration):
    dependencies = [("blog", "0020_search_text_uncompressed")]

    operations = [migrations.RunPython(create_index, drop_index)]
