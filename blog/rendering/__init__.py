"""The rendering pipeline: Markdown → sanitised HTML, pure functions, no ORM.

What the author previews and what readers get come from the same call:
:func:`render_markdown` (the body, its table of contents, plain text, excerpt, word count and
reading time), :func:`render_preview` (the editor's preview, the same HTML) and
:func:`render_blocks` (the body block by block, for the parallel view). Inside:

* :mod:`.budget`: the bounds every render is held to (size, CPU time, memory), and
  :class:`RenderRefused` past one;
* :mod:`.markdown`: Python-Markdown with pymdown-extensions, Pygments, heading anchors;
* :mod:`.mathml`, :mod:`.spacing`, :mod:`.a11y`: biji's own Markdown extensions;
* :mod:`.sanitizer`: the nh3 allowlist every rendered HTML passes through;
* :mod:`.math_text`: how a formula reads as text (feeds, search text, excerpts);
* :mod:`.pictures`: the images biji stored as sized ``<picture>`` elements (after sanitising);
* :mod:`.feed_html`: the stored HTML rewritten for feed readers.

May import: :mod:`blog.text` only.
"""

from blog.rendering.budget import MAX_MARKDOWN_BYTES, RenderRefused, check_size
from blog.rendering.markdown import Rendered, render_blocks, render_markdown, render_preview

__all__ = [
    "MAX_MARKDOWN_BYTES", "RenderRefused", "Rendered", "check_size", "render_blocks",
    "render_markdown", "render_preview",
]  # fmt: skip
