"""PostgreSQL: the search side table's long columns kept uncompressed.

A search reads a document's text and n-grams whenever a term is too common for an index to
narrow it down (a frequent Chinese word, a glossary term's English forms): compressed, each
row is decompressed for every such query. Uncompressed they take ~12% more room and the
benchmark's slowest queries took a third of the time (docs/performance.md). Rows written before
this migration keep their compression until rewritten: ``manage.py rebuild_search_index``.
SQLite keeps its FTS5 tables; nothing changes there.
"""

from django.db import migrations

COLUMNS = ("text", "grams", "title_grams", "tag_grams")


def _set_storage(storage):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        changes = ", ".join(f"ALTER COLUMN {column} SET STORAGE {storage}" for column in COLUMNS)
        schema_editor.execute(f"ALTER TABLE blog_searchdocument {changes}")

    return run


class Migration(migrations.Migration):
    dependencies = [("blog", "0019_note_translation_key")]

    operations = [
        migrations.RunPython(_set_storage("EXTERNAL"), _set_storage("EXTENDED")),
    ]
