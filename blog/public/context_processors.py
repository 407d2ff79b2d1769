"""Site-wide template context, lazily: renders that never show the site's chrome load nothing."""

from django.utils.functional import SimpleLazyObject

from blog.caching import site_settings


def site(request):
    site = SimpleLazyObject(site_settings)
    return {"site": site, "navigation": SimpleLazyObject(lambda: site.navigation_links)}
