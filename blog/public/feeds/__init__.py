"""Full-content RSS 2.0 and Atom feeds (:mod:`.notes`), mounted outside the language prefix.

May import what :mod:`blog.public` may.
"""
