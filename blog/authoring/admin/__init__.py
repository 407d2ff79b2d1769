"""Where the author writes: importing this package registers every admin, one module per
model, and brands the admin with the site's title.
"""

import django_tasks_db.admin  # noqa: F401  (registers DBTaskResult now: unregistered below)
from django.contrib import admin
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_tasks_db.models import DBTaskResult
from taggit.models import Tag as TaggitTag

from blog.authoring.admin import (  # noqa: F401  (each registers its admin)
    fediverse,
    glossary,
    imports,
    notes,
    pages,
    series,
    site_settings,
    tags,
)
from blog.caching import site_settings as current_site_settings


def _site_title():
    site = current_site_settings()
    return getattr(site, "title", "") or "biji"


# "笔记 biji 管理" / "笔记 biji administration": the site's own title, in the admin's language.
admin.site.site_header = lazy(
    lambda: gettext("%(site)s administration") % {"site": _site_title()}, str
)()
admin.site.site_title = lazy(_site_title, str)()
admin.site.index_title = _("Write and manage the blog")
admin.site.site_url = "/"

# django-tasks-db's list of task results (every task's arguments and traceback) is the
# operator's: `manage.py tasks` shows it. (Its admin module is imported above, so that this
# holds: the app comes after blog in INSTALLED_APPS, and autodiscovery would register it later.)
admin.site.unregister(DBTaskResult)

# taggit registers an admin for its own Tag model, which biji does not use.
if admin.site.is_registered(TaggitTag):
    admin.site.unregister(TaggitTag)
