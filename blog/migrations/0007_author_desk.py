"""The author's desk (issue 8): series positions unique per language, constraint messages for
the author, English tag names optional (a tag typed in Chinese is no longer copied into it)."""

import re

from django.db import migrations, models

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def drop_copied_english_names(apps, schema_editor):
    """Tags created from a Chinese name had it copied into the English one: empty it."""
    tags = apps.get_model("blog", "Tag").objects.using(schema_editor.connection.alias)
    for tag in tags.exclude(name=""):
        if tag.name == tag.name_zh and HAN.search(tag.name):
            tags.filter(pk=tag.pk).update(name="")


def copy_chinese_names_back(apps, schema_editor):
    tags = apps.get_model("blog", "Tag").objects.using(schema_editor.connection.alias)
    tags.filter(name="").update(name=models.F("name_zh"))


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0005_legacypath"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="note",
            name="blog_note_unique_series_position",
        ),
        migrations.AddConstraint(
            model_name="note",
            constraint=models.UniqueConstraint(
                condition=models.Q(("series__isnull", False), ("series_position__isnull", False)),
                fields=("series", "language", "series_position"),
                name="blog_note_unique_series_language_position",
                violation_error_message=(
                    "Another note in this language already holds this position in the series."
                ),
            ),
        ),
        migrations.AlterConstraint(
            model_name="note",
            name="blog_note_published_has_date",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("status", "published"), _negated=True),
                    ("published_at__isnull", False),
                    _connector="OR",
                ),
                name="blog_note_published_has_date",
                violation_error_message="A published note needs a publication time.",
            ),
        ),
        migrations.AlterField(
            model_name="note",
            name="excerpt",
            field=models.TextField(default="", editable=False, verbose_name="excerpt"),
        ),
        migrations.AlterField(
            model_name="tag",
            name="name",
            field=models.CharField(
                blank=True,
                help_text=(
                    "Shown in the English interface, e.g. “Scheduling”. Leave it empty when it "
                    "is not known yet: the Chinese name is shown instead."
                ),
                max_length=100,
                verbose_name="English name",
            ),
        ),
        migrations.RunPython(drop_copied_english_names, copy_chinese_names_back),
        migrations.AddConstraint(
            model_name="tag",
            constraint=models.UniqueConstraint(
                condition=models.Q(("name", ""), _negated=True),
                fields=("name",),
                name="blog_tag_unique_name",
                violation_error_message="Another tag already has this English name.",
            ),
        ),
        migrations.AddConstraint(
            model_name="tag",
            constraint=models.CheckConstraint(
                condition=models.Q(("name", ""), ("name_zh", ""), _negated=True),
                name="blog_tag_has_a_name",
                violation_error_message="Give the tag a Chinese or an English name.",
            ),
        ),
        migrations.AlterConstraint(
            model_name="tag",
            name="blog_tag_unique_name_zh",
            constraint=models.UniqueConstraint(
                condition=models.Q(("name_zh", ""), _negated=True),
                fields=("name_zh",),
                name="blog_tag_unique_name_zh",
                violation_error_message="Another tag already has this Chinese name.",
            ),
        ),
    ]
