from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.cache import cache_control
from django.views.static import serve

from blog.public import sitemaps
from blog.public.views import robots_txt

# The admin lives at BIJI_ADMIN_PATH ("admin/" by default): a less guessable address spares
# the login page most scripted attempts (django-axes throttles the rest).
ADMIN = settings.BIJI_ADMIN_PATH

urlpatterns = [
    # The editor's image upload endpoint, staff only (before the admin's catch-all).
    path(f"{ADMIN}editor/", include("blog.authoring.editor.urls")),
    path(ADMIN, admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # The sitemap index, and each section's sitemap in pages of 5,000 URLs (?p=2, …).
    path("sitemap.xml", sitemaps.index, name="sitemap"),
    path(
        "sitemap-<slug:section>.xml",
        sitemaps.section,
        {"sitemaps": sitemaps.SITEMAPS},
        name="sitemap-section",
    ),
    path("robots.txt", robots_txt, name="robots-txt"),
    # The mail provider's bounce and complaint webhooks, behind ANYMAIL's WEBHOOK_SECRET.
    path("anymail/", include("blog.mail.webhook_urls")),
    # The fediverse (BIJI_FEDIVERSE): WebFinger, NodeInfo, the actors, their inboxes, the notes.
    path("", include("blog.public.fediverse_urls")),
    path("", include("blog.public.feeds.urls")),
]

if settings.BIJI_SERVE_MEDIA:
    # In development (DEBUG) or when BIJI_SERVE_MEDIA=1; in production a web server serves
    # MEDIA_ROOT (README). Uploaded images are verified rasters stored under random names, so
    # they can be kept for a long time.
    urlpatterns.append(
        re_path(
            r"^media/(?P<path>.*)$",
            cache_control(public=True, max_age=86400 * 30)(serve),
            {"document_root": settings.MEDIA_ROOT},
        )
    )

urlpatterns += i18n_patterns(
    path("", include("blog.public.urls")),
    # The notes as Markdown: each note's index.md, llms.txt and llms-full.txt (BIJI_LLMS_TXT).
    path("", include("blog.porting.source_urls")),
    prefix_default_language=False,
)
