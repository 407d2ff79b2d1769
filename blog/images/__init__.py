"""Images that enter biji: verified by Pillow, re-encoded without metadata, stored under a random
name with the extension of the detected format (:mod:`.uploads`). Used by the editor's uploads,
the note's cover image and the importers. Each stored image is registered with its size and
gets smaller AVIF and WebP copies on the background runner (:mod:`.variants`,
:mod:`.variant_tasks`), which pages offer as a ``<picture>`` (:mod:`blog.rendering.pictures`).

May import: :mod:`blog.models`, :mod:`blog.text`.
"""
