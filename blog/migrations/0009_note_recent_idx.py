"""An index in the lists' order (published_at DESC NULLS LAST, id DESC): the home page reads
its ten notes from it instead of sorting every published note."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0008_sitesettings_show_other_languages"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="note",
            index=models.Index(
                models.F("published_at").desc(nulls_last=True),
                models.F("id").desc(),
                name="blog_note_recent_idx",
            ),
        ),
    ]
