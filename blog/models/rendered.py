"""Rendering as a step of its own: Markdown fields → stored HTML, never per request."""

from blog.rendering import RenderRefused, render_blocks, render_markdown


class RenderedMarkdownMixin:
    """For models that store what their ``markdown_fields`` render to (``derived_fields``).
    ``save()`` renders when a source changed; :meth:`render` stores the derived fields alone, so
    ``updated_at`` does not move; :meth:`render_ahead` renders before a transaction opens."""

    markdown_fields: tuple[str, ...] = ()
    derived_fields: tuple[str, ...] = ()

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance._rendered_source = instance._markdown_source()
        return instance

    def fill_derived_fields(self):
        raise NotImplementedError

    def render_field(self, name, toc_title="Contents"):
        with _naming(name):
            return render_markdown(getattr(self, name), toc_title)

    def render_field_blocks(self, name, toc_title="Contents"):
        with _naming(name):
            return render_blocks(getattr(self, name), toc_title)

    def render_ahead(self):
        """Render now what a save would render (kept in memory, not stored)."""
        self.fill_derived_fields()

    def render(self):
        """Render the Markdown and store only the derived fields."""
        self._render_in_memory()
        if self.pk is not None and not self._state.adding:
            self.save(update_fields=self.derived_fields)

    def save(self, *args, **kwargs):
        stale = self._markdown_source() != getattr(self, "_rendered_source", None)
        update_fields = kwargs.get("update_fields")
        partial = update_fields is not None
        if partial:
            # Text changed in memory but not being saved must not reach the stored HTML.
            stale = stale and not set(self.markdown_fields).isdisjoint(update_fields)
        if stale and not partial:
            self._render_in_memory()
        super().save(*args, **kwargs)
        if stale and partial:
            # A partial save of the Markdown (update_or_create does one): its HTML follows.
            self.render()

    def _render_in_memory(self):
        self.fill_derived_fields()
        self._rendered_source = self._markdown_source()

    def _markdown_source(self):
        # From __dict__: a deferred field (lists defer the body) is not loaded just to compare.
        return tuple(self.__dict__.get(name) for name in self.markdown_fields)


class _naming:
    """Names the field of a text the renderer refused (``RenderRefused.field``)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if isinstance(error, RenderRefused) and getattr(error, "field", None) is None:
            error.field = self.name
        return False
