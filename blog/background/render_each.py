"""Rendering stored objects again in the background, one transaction each."""

from django.db import DatabaseError, transaction


def render_each(queryset):
    """``render()`` each object of ``queryset`` (notes or pages) in a transaction of its own,
    in batches of 200; one deleted since it was chosen is skipped. Returns how many were
    rendered."""
    model = queryset.model
    rendered = 0
    for obj in queryset.order_by("pk").iterator(chunk_size=200):
        try:
            with transaction.atomic():
                obj.render()  # for a note: its term marks and TermUse rows together
        except DatabaseError:
            if model.objects.filter(pk=obj.pk).exists():
                raise
            continue  # deleted since: nothing to render
        rendered += 1
    return rendered
