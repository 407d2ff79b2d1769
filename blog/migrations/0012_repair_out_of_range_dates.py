"""Times an older biji let through (a year-1 note, a year-10000 schedule) moved into 1970-2200.

On PostgreSQL such a time breaks the archive, feeds, sitemap and the admin's note list until it
is repaired; running the repair on upgrade means no author has to know ``manage.py
repair_dates`` exists. Nothing to undo: the moved times were unreadable.
"""

from django.db import migrations

from blog.models.date_repair import clamp_out_of_range_times


def repair(apps, schema_editor):
    clamp_out_of_range_times(schema_editor.connection.alias, registry=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0011_import_runs"),
    ]

    operations = [
        migrations.RunPython(repair, migrations.RunPython.noop, elidable=True),
    ]
