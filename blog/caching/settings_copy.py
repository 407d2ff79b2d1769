"""The site settings as every page reads them: one copy per content state, in the shared cache.

Every page shows the site's title, taglines, navigation and footer. Reading them is two
queries; the copy costs a cache read (and the request's content-state query, shared with
everything else keyed by it). Any committed change of the settings or the navigation moves the
content version, so every worker sees it at once. A change also drops the copy at once
(:func:`forget_site_settings`), so code that reads the settings again in the same transaction
sees the change. With the cache down, the settings come from the database.
"""

from django.db import DEFAULT_DB_ALIAS

from blog.caching import store
from blog.caching.keys import versioned_key
from blog.models import SiteSettings

TIMEOUT = 24 * 3600


def _key(using):
    return versioned_key("site-settings", using=using)


def site_settings(using=DEFAULT_DB_ALIAS) -> SiteSettings:
    site = store.get(_key(using))
    if site is None:
        site = SiteSettings.load(using)
        store.set(_key(using), site, TIMEOUT)
    return site


def forget_site_settings(using=DEFAULT_DB_ALIAS) -> None:
    store.delete(_key(using))
