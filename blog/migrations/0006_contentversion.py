"""The content version (blog.caching.version), with its one row; link fields validate schemes."""

import django.utils.timezone
from django.db import migrations, models

import blog.text.validators


def create_row(apps, schema_editor):
    ContentVersion = apps.get_model("blog", "ContentVersion")
    ContentVersion.objects.using(schema_editor.connection.alias).get_or_create(
        pk=1, defaults={"value": 1, "changed_at": django.utils.timezone.now()}
    )


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0004_searchdocument"),
    ]

    operations = [
        migrations.CreateModel(
            name="ContentVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("value", models.BigIntegerField(default=1, verbose_name="version")),
                ("changed_at", models.DateTimeField(auto_now_add=True, verbose_name="changed")),
            ],
            options={
                "verbose_name": "content version",
                "verbose_name_plural": "content version",
            },
        ),
        migrations.RunPython(create_row, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="navigationlink",
            name="url",
            field=models.CharField(
                help_text="A path on this site (/series/) or a full URL.",
                max_length=300,
                validators=[blog.text.validators.validate_link_url],
                verbose_name="URL",
            ),
        ),
        migrations.AlterField(
            model_name="note",
            name="source_url",
            field=models.URLField(
                blank=True,
                max_length=500,
                validators=[blog.text.validators.validate_link_url],
                verbose_name="original URL",
            ),
        ),
    ]
