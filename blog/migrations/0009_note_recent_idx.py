"""An index in the lists' order (Note.Meta.ordering: published_at DESC NULLS LAST, id DESC):
the home page reads its ten notes from it instead of sorting every published note.

Written per database, outside the model state: SQLite accepts no NULLS LAST in an index
(its DESC order already puts NULLs last, so the plain DESC index matches there).
"""

from django.db import migrations

NAME = "blog_note_recent_idx"
COLUMNS = {
    "postgresql": "published_at DESC NULLS LAST, id DESC",
    "sqlite": "published_at DESC, id DESC",
}


def create(apps, schema_editor):
    columns = COLUMNS.get(schema_editor.connection.vendor)
    if columns:
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {NAME} ON blog_note ({columns})")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor in COLUMNS:
        schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0008_sitesettings_show_other_languages"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
