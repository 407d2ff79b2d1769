"""The admin renders a posted text before its write transaction opens.

On SQLite that transaction holds the only write lock from its first statement, and a render may
take up to its bound (:mod:`blog.rendering.budget`), stalling every other writer. The save
inside finds the render memoised; a text the renderer refuses is an error on its field.
"""

import copy
import logging

from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError

from blog.rendering import RenderRefused

logger = logging.getLogger(__name__)


class RenderCheckedFormMixin:
    """A model form whose instance must render: a refused text is its field's error."""

    def _post_clean(self):
        super()._post_clean()
        try:
            self.instance.render_ahead()
        except RenderRefused as refusal:
            field = getattr(refusal, "field", None)
            self.add_error(field if field in self.fields else None, str(refusal))


class RendersAheadAdminMixin:
    """For the admins of models with Markdown; first in the bases, so that it runs before any
    transaction the others open."""

    # Fields besides the Markdown that change what a save renders (a note's language titles
    # its [TOC]; a translation makes it render its blocks too).
    render_inputs = ("language", "translation")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if issubclass(form, RenderCheckedFormMixin):
            return form
        return type(form.__name__, (RenderCheckedFormMixin, form), {})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method == "POST":
            self._render_ahead(request, object_id)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def _render_ahead(self, request, object_id):
        obj = self.get_object(request, unquote(object_id)) if object_id else None
        if object_id and (obj is None or not self.has_change_permission(request, obj)):
            return
        if not object_id and not self.has_add_permission(request):
            return
        try:
            instance = self._posted_instance(request, obj)
            instance.render_ahead()
            self.render_related_ahead(instance)
        except RenderRefused:
            pass  # the form's validation says so, on the field
        except Exception:  # the real validation meets it again, and answers for it
            logger.debug("Rendering ahead of the admin's save failed", exc_info=True)

    def render_related_ahead(self, instance):
        """What else saving ``instance`` renders (a note's translation)."""

    def _posted_instance(self, request, obj):
        """The object with the posted Markdown and what shapes its render, nothing else."""
        form_class = self.get_form(request, obj, change=obj is not None)
        form = form_class(request.POST, request.FILES, instance=copy.copy(obj) if obj else None)
        instance = form.instance
        for name in (*self.model.markdown_fields, *self.render_inputs):
            if name not in form.fields:
                continue
            try:
                value = form.fields[name].clean(form[name].value())
            except ValidationError:
                continue
            setattr(instance, name, value)
        return instance
