"""Site-wide template context, lazily: nothing is loaded unless a template uses it.

Feeds and other template renders that never show the site's chrome pay nothing.
"""

from django.utils.functional import SimpleLazyObject

from blog.caching import site_settings


def site(request):
    site = SimpleLazyObject(site_settings)
    return {"site": site, "navigation": SimpleLazyObject(lambda: site.navigation_links)}
