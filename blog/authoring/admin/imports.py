"""The admin's imports, run in the background: porting's pages, the one place the admin
reaches into another package of its layer. The list and progress pages of import runs
(read-only) are registered here; the notes' admin mounts the import page itself."""

from django.contrib import admin

from blog.models.import_runs import ImportRun
from blog.porting.admin_views import ImportRunAdmin, import_markdown_view

__all__ = ["import_markdown_view"]

admin.site.register(ImportRun, ImportRunAdmin)
