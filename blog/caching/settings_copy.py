"""The site settings as every page reads them: one copy per content state, in the shared cache.

Saving the settings or a navigation link moves the content version after the commit, and
also drops the copy at once (:func:`forget_site_settings`), so that what the same transaction
renders afterwards shows the change. With the cache down, the settings come from the database.
"""

from django.db import DEFAULT_DB_ALIAS

from blog.caching import store
from blog.caching.keys import KEPT_SECONDS, versioned_key
from blog.models import SiteSettings


def _key(using):
    return versioned_key("site-settings", using=using)


def site_settings(using=DEFAULT_DB_ALIAS) -> SiteSettings:
    site = store.get(_key(using))
    if site is None:
        site = SiteSettings.load(using)
        store.set(_key(using), site, KEPT_SECONDS)
    return site


def forget_site_settings(using=DEFAULT_DB_ALIAS) -> None:
    store.delete(_key(using))
