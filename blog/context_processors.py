"""Site-wide template context, lazily: nothing is loaded unless a template uses it.

Feeds and other template renders that never show the site's chrome pay nothing.
"""

from django.utils.functional import SimpleLazyObject

from .models import SiteSettings


def site(request):
    loaded = {}

    def load():
        if "value" not in loaded:
            loaded["value"] = SiteSettings.load()
        return loaded["value"]

    return {
        "site": SimpleLazyObject(lambda: load()[0]),
        "navigation": SimpleLazyObject(lambda: load()[1]),
    }
