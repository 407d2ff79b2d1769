"""``{{ name|stored_url }}``: the URL of a stored file (a share card) as the media storage gives it,
so a CDN domain or an object store's address is in the page, never ``MEDIA_URL`` + name. It makes
no request: the storage computes it."""

from django import template
from django.core.files.storage import default_storage

register = template.Library()


@register.filter
def stored_url(name):
    return default_storage.url(name) if name else ""
