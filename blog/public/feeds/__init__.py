"""Full-content RSS 2.0 and Atom feeds for everything, each tag, series and language
(:mod:`.notes`), mounted outside the language prefix (:mod:`.urls`).

May import what :mod:`blog.public` may.
"""
