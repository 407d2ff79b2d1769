"""The author's desk, in the Django admin: the ModelAdmins (:mod:`.admin`), forms with the
Markdown editor and friendly validation (:mod:`.forms`), edit conflicts (:mod:`.conflicts`),
the history of a note or page (:mod:`.history`), the media library, the login lockout
(:mod:`.login`) and the editor's staff-only endpoints (:mod:`.editor`).

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.models`,
:mod:`blog.rendering`, :mod:`blog.text`, and :mod:`blog.porting.admin_views` (the admin
registers the import page); never :mod:`blog.public` or :mod:`blog.ops`.
"""
