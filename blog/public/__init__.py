"""What readers get: URLs (:mod:`.urls`), class-based views (:mod:`.views`, search's page
among them), feeds (:mod:`.feeds`), sitemaps, the template context, pagination, and the
response policies that hold for every page (:mod:`.middleware`: security headers, the language
from the URL; :mod:`.legacy_redirects`: old URLs of imported posts).

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.mail`,
:mod:`blog.models`,
:mod:`blog.rendering`, :mod:`blog.text`; never :mod:`blog.authoring`, :mod:`blog.porting` or
:mod:`blog.ops`.
"""
