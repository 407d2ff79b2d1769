"""Times an older biji let through (a year-1 note, a year-10000 schedule) moved into 1970-2200.

On PostgreSQL such a time breaks the archive, feeds, sitemap and the admin's note list until it
is repaired; running the repair on upgrade means no author has to know ``manage.py
repair_dates`` exists. Nothing to undo: the moved times were unreadable.

Self-contained: a frozen copy of ``blog.models.date_repair`` and of the publication years of
``blog.text.date_range`` as they were when this was written, so that a later change to them
does not change what this migration did.
"""

from datetime import datetime

from django.db import migrations, models
from django.utils import timezone

FIRST_YEAR, LAST_YEAR = 1970, 2200


def repair(apps, schema_editor):
    """Every date and time of the blog's models outside the years moved to the nearest bound,
    in SQL, without reading them (Python cannot read a year-0 time)."""
    zone = timezone.get_default_timezone()
    low = datetime(FIRST_YEAR, 1, 1, tzinfo=zone)
    high = datetime(LAST_YEAR, 12, 31, 23, 59, 59, 999999, tzinfo=zone)
    for model in apps.get_app_config("blog").get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.DateTimeField):
                continue
            rows = model._base_manager.using(schema_editor.connection.alias)
            rows.filter(**{f"{field.name}__lt": low}).update(**{field.name: low})
            rows.filter(**{f"{field.name}__gt": high}).update(**{field.name: high})


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0011_import_runs"),
    ]

    operations = [
        migrations.RunPython(repair, migrations.RunPython.noop, elidable=True),
    ]
