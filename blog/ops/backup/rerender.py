"""Every stored HTML a restore brings in, rendered again from its Markdown, as a crafted backup
could put script on every page; a refused text becomes its escaped Markdown.

May import what :mod:`blog.ops` may.
"""

import gc
from dataclasses import dataclass

from django.db import models, transaction
from django.utils.html import escape

from blog.background import after_commit
from blog.models import Term, term_matching
from blog.models.rendered import RenderedMarkdownMixin
from blog.ops.backup.portable import dumped_models

try:
    from blog.rendering import RenderRefused
except ImportError:  # a renderer that names no refusal yet raises ValueError
    RenderRefused = ValueError

BATCH = 200
# What others render with: notes' tooltips are the terms' definitions as rendered.
RENDERED_FIRST = (Term,)
# A refusal that says the machine was busy, not the text too hard, is tried again.
TRIES = 3


@dataclass(frozen=True)
class Refused:
    """An object whose text the renderer refused, and why."""

    model: type
    name: str  # its slug ("" for the site settings)
    field: str | None  # the Markdown field refused, when the renderer says
    reason: str


def rendered_models():
    """The models a restore fills whose HTML is rendered from Markdown, in rendering order."""
    chosen = [model for model in dumped_models() if issubclass(model, RenderedMarkdownMixin)]
    return sorted(chosen, key=lambda model: model not in RENDERED_FIRST)


def render_all(using, progress=None):
    """Render every object of :func:`rendered_models` in ``using`` again, in the caller's
    transaction, calling ``progress(model, done, total)`` per batch. Returns ``({model: count},
    [Refused])``."""
    counts, refused = {}, []
    for model in rendered_models():
        objects = model._base_manager.using(using).order_by("pk")
        total, done, last = objects.count(), 0, None
        while batch := list((objects if last is None else objects.filter(pk__gt=last))[:BATCH]):
            for obj in batch:
                if (refusal := _render(obj, using)) is not None:
                    _store_refused(obj, using)
                    refused.append(_refused(obj, refusal))
            done, last = done + len(batch), batch[-1].pk
            _let_go(batch, using)
            if progress is not None:
                progress(model, done, total)
        counts[model] = done
        if model in RENDERED_FIRST:
            term_matching.forget()  # a refused term is stored without signals
    return counts, refused


def _let_go(batch, using):
    """Free what a batch held, so a restore's memory does not grow with the number of notes:
    a note and its cover's file object refer to each other, so a note read is freed by the
    cyclic collector, which counts objects, not the bytes of their texts, and would wait
    thousands of notes; and each save registered its after-commit callbacks again."""
    batch.clear()
    gc.collect()
    after_commit.compact(using)


def _render(obj, using):
    """``obj.render()`` in a savepoint of its own; the refusal, or None once rendered."""
    for attempt in range(1, TRIES + 1):
        try:
            with transaction.atomic(using=using):
                obj.render()
            return None
        except RenderRefused as refusal:
            if attempt == TRIES or not getattr(refusal, "transient", False):
                return refusal
    return None


def _store_refused(obj, using):
    values = {name: _refused_value(obj, name) for name in obj.derived_fields}
    type(obj)._base_manager.using(using).filter(pk=obj.pk).update(**values)


def _refused_value(obj, name):
    """``X_html`` rendered from the Markdown field ``X``: that text, escaped, preformatted;
    every other derived field (a table of contents, blocks, counts): its default."""
    source = name.removesuffix("_html")
    if source != name and source in obj.markdown_fields:
        if isinstance(obj._meta.get_field(source), models.TextField):
            text = getattr(obj, source) or ""
            return f"<pre>{escape(text)}</pre>" if text.strip() else ""
    return obj._meta.get_field(name).get_default()


def _refused(obj, refusal):
    return Refused(
        model=type(obj),
        name=getattr(obj, "slug", ""),
        field=getattr(refusal, "field", None),
        reason=str(refusal),
    )
