"""Images that enter biji: verified by Pillow, re-encoded without metadata, stored under a random
name with the extension of the detected format (:mod:`.uploads`). Used by the editor's uploads,
the note's cover image and the importers.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""
