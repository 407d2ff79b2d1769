"""The demo blog, as data: notes and pages in Markdown files, the rest in :mod:`blog.ops.demo.site`.

``manage.py load_demo`` loads it (see :mod:`blog.ops.demo.loader`). Everything here is original
demo writing; the real blog's snapshot in ``../shared/seed`` stays test data only.
"""
