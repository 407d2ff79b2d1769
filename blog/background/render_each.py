"""Rendering stored objects again in the background, one short transaction each."""

import logging

from django.db import DatabaseError, transaction

from blog.rendering import RenderRefused

logger = logging.getLogger(__name__)


def render_each(queryset, refused=None):
    """``render()`` each object of ``queryset`` (notes or pages), in batches of 200.

    Each renders before its transaction opens (``render_ahead``), so a transaction holds only
    the write. One deleted since it was chosen is skipped; one whose text the renderer refuses
    keeps what it had, is logged, and is added to ``refused`` (a list) if given. Returns how
    many were rendered."""
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
