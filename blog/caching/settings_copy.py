"""The site settings as every page reads them, one copy per content state in the shared cache;
saving them also drops it at once, for what the same transaction renders next.
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
