from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path, re_path
from django.views.decorators.cache import cache_control
from django.views.static import serve

from blog.sitemaps import SITEMAPS
from blog.views import robots_txt

urlpatterns = [
    # The editor's preview and upload endpoints, staff only (before the admin's catch-all).
    path("admin/editor/", include("blog.editor_urls")),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path(
        "sitemap.xml",
        cache_control(public=True, max_age=3600)(sitemap),
        {"sitemaps": SITEMAPS},
        name="sitemap",
    ),
    path("robots.txt", robots_txt, name="robots-txt"),
    path("", include("blog.feed_urls")),
]

if settings.BIJI_SERVE_MEDIA:
    # Uploaded images are verified rasters stored under random names, so they can be served
    # from here for a long time; a web server or CDN in front may take this over.
    urlpatterns.append(
        re_path(
            r"^media/(?P<path>.*)$",
            cache_control(public=True, max_age=86400 * 30)(serve),
            {"document_root": settings.MEDIA_ROOT},
        )
    )

urlpatterns += i18n_patterns(path("", include("blog.urls")), prefix_default_language=False)
