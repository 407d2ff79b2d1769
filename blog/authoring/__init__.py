"""The author's desk, in the Django admin.

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.models`,
:mod:`blog.rendering`, :mod:`blog.text`, and :mod:`blog.porting.admin_views` (the admin
registers the import page); never :mod:`blog.public` or :mod:`blog.ops`.
"""
