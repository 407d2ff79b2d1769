"""The rendering pipeline: Markdown → sanitised HTML, pure functions, no ORM; the preview and the
page come from the same call, held to :mod:`.budget`'s bounds.

May import: :mod:`blog.text` only.
"""

from blog.rendering.budget import MAX_MARKDOWN_BYTES, RenderRefused, check_size
from blog.rendering.markdown import Rendered, render_blocks, render_markdown, render_preview

__all__ = [
    "MAX_MARKDOWN_BYTES", "RenderRefused", "Rendered", "check_size", "render_blocks",
    "render_markdown", "render_preview",
]  # fmt: skip
