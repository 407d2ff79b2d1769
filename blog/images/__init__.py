"""Images that enter biji: verified, re-encoded without metadata and stored (:mod:`.uploads`), with
AVIF and WebP variants made on the background runner (:mod:`.variants`), and share cards.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""
