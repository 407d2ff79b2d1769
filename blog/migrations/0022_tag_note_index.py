"""A tag's notes indexed as (tag, note), in place of the tag alone: related notes read a tag's
newest notes from the index alone (blog.public.related), and a tag's lists use it as they used
the old one."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0021_search_units_index"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="taggednote",
            index=models.Index(
                fields=["tag", "content_object"], name="blog_taggednote_tag_note_idx"
            ),
        ),
        migrations.AlterField(
            model_name="taggednote",
            name="tag",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="tagged_notes",
                to="blog.tag",
            ),
        ),
    ]
