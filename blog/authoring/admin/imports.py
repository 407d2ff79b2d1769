"""The admin's import runs (read-only list and progress pages): porting's pages, the one place
the admin reaches into another package of its layer."""

from django.contrib import admin

from blog.models.import_runs import ImportRun
from blog.porting.admin_views import ImportRunAdmin, import_markdown_view

__all__ = ["import_markdown_view"]

admin.site.register(ImportRun, ImportRunAdmin)
