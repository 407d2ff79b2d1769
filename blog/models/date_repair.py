"""Times stored out of range, moved to the nearest bound in SQL without reading them: PostgreSQL
keeps year 1 as ``0001-12-31 BC``, which Python cannot load."""

from django.apps import apps
from django.db import DEFAULT_DB_ALIAS, models

from blog.text.date_range import PUBLICATION


def clamp_out_of_range_times(using=DEFAULT_DB_ALIAS, registry=apps):
    """Move every date and time of biji's models outside 1970-2200 to the nearest bound, with
    ``registry`` the app registry (a migration's ``apps``). Returns rows changed per field."""
    low, high = PUBLICATION.bounds()
    changed = {}
    for model in registry.get_app_config("blog").get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.DateTimeField):
                continue
            rows = model._base_manager.using(using)
            count = rows.filter(**{f"{field.name}__lt": low}).update(**{field.name: low})
            count += rows.filter(**{f"{field.name}__gt": high}).update(**{field.name: high})
            if count:
                changed[f"{model._meta.label_lower}.{field.name}"] = count
    return changed
