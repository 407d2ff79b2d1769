"""Site-wide template context, lazily: nothing is loaded unless a template uses it.

Feeds and other template renders that never show the site's chrome pay nothing.
"""

from django.utils.functional import SimpleLazyObject

from .models import SiteSettings


def site(request):
    site = SimpleLazyObject(SiteSettings.load)
    return {"site": site, "navigation": SimpleLazyObject(lambda: site.navigation_links)}
