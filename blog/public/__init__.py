"""What readers get: URLs, views, feeds, sitemaps, context, pagination and middleware.

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.mail`,
:mod:`blog.models`, :mod:`blog.rendering`, :mod:`blog.text`; never :mod:`blog.authoring`,
:mod:`blog.porting` or :mod:`blog.ops`.
"""
