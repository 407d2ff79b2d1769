"""Rendering stored objects again in the background, one short transaction each."""

import logging

from django.db import DatabaseError, transaction

from blog.rendering import RenderRefused

logger = logging.getLogger(__name__)


def render_each(queryset, refused=None):
    """``render()`` each object of ``queryset`` in batches of 200, each before its transaction
    opens. Refused texts keep what they had and go to ``refused``. Returns how many were rendered.
    """
    model = queryset.model
    rendered = 0
    for obj in queryset.order_by("pk").iterator(chunk_size=200):
        try:
            obj.render_ahead()
            with transaction.atomic():
                obj.render()  # for a note: its term marks and TermUse rows together
        except RenderRefused as refusal:
            logger.warning("%s %s was not rendered again: %s", model.__name__, obj.pk, refusal)
            if refused is not None:
                refused.append((obj, refusal))
            continue
        except DatabaseError:
            if model.objects.filter(pk=obj.pk).exists():
                raise
            continue  # deleted since: nothing to render
        rendered += 1
    return rendered
