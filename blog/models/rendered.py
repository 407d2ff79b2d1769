"""Rendering as a step of its own: Markdown fields → stored HTML, never per request."""

from blog.rendering import RenderRefused, render_blocks, render_markdown


class RenderedMarkdownMixin:
    """For models that store what their Markdown renders to.

    A model names its Markdown sources in ``markdown_fields`` and what is derived from them in
    ``derived_fields``, and fills the latter in :meth:`fill_derived_fields`.

    * ``save()`` renders when a Markdown source changed since the object was loaded (or
      rendered), so the HTML is never behind the text;
    * :meth:`render` renders again and stores the derived fields alone: ``updated_at`` does
      not move, so a renderer upgrade (``manage.py rerender``) changes no date a reader sees
      and revokes no share link;
    * :meth:`render_ahead` does the slow part (the Markdown, within the bounds of
      :mod:`blog.rendering.budget`) before a write transaction opens: the save inside it finds
      the result memoised. A text the renderer refuses raises
      :class:`~blog.rendering.RenderRefused` with ``field`` naming its field.

    ``fill_derived_fields`` renders each source with :meth:`render_field` (and
    :meth:`render_field_blocks`), which name the field in a refusal.
    """

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
