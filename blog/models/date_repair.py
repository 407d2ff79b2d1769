"""Times that slipped in before they were checked, brought back into the range pages can show.

A note dated year 1 before :mod:`blog.text.date_range` existed is stored by PostgreSQL as
``0001-12-31 BC``, which Python cannot read: every query that loads it fails, the admin's note
list (its date hierarchy reads the earliest date) included, so the author cannot repair it
there. :func:`clamp_out_of_range_times` moves such times to the nearest bound, in SQL, without
reading them: a note dated year 1 is then dated 1 January 1970, and a note scheduled for year
10000 is scheduled for the last moment of 2200, visible in the admin and easy to correct.
"""

from django.apps import apps
from django.db import DEFAULT_DB_ALIAS, models

from blog.text.date_range import PUBLICATION


def clamp_out_of_range_times(using=DEFAULT_DB_ALIAS, registry=apps):
    """Move every date and time of biji's models outside 1970-2200 to the nearest bound.

    ``registry`` is the app registry: a data migration passes its historical ``apps``.
    Returns {"app_label.model.field": rows changed} for the fields that had any.
    """
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
