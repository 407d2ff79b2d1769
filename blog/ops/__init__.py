"""Running a blog: online backups and restores (:mod:`.backup`) and the demo blog (:mod:`.demo`).

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.models`,
:mod:`blog.rendering`, :mod:`blog.text`; never :mod:`blog.public`, :mod:`blog.authoring` or
:mod:`blog.porting`.
"""
