"""Template tags and filters of the public templates (:mod:`.blog_tags`). Part of the public layer:
may import what :mod:`blog.public` may."""
