"""The paths readers find content at: the public URLconf says which URL shows which kind
(:func:`provide`) and the models ask by kind, so no lower layer names a public URL.

May import: :mod:`blog.text`.
"""

from django.core.exceptions import ImproperlyConfigured
from django.urls import get_resolver, get_urlconf, reverse

from blog.text.slug_urls import slug_path

# kind → the URL names that show it; the first is the content's own address.
_views: dict[str, tuple[str, ...]] = {}


def provide(**views):
    """Which URL (its name) shows each kind of content, or which URLs: a tuple whose first
    name is the content's own address (a note also shows at its share links)."""
    for kind, names in views.items():
        _views[kind] = (names,) if isinstance(names, str) else tuple(names)


def path(kind, slug=None):
    """The path of the ``kind`` of content with ``slug`` (the glossary: none), in the
    active language, as ``reverse()`` gives it."""
    name = _names(kind)[0]
    return reverse(name) if slug is None else slug_path(name, slug)


def kind_of(view_name):
    """The kind of content the URL named ``view_name`` shows, or None."""
    _load_urlconf()
    return next((kind for kind, names in _views.items() if view_name in names), None)


def _names(kind):
    names = _views.get(kind)
    if names is None:
        _load_urlconf()
        names = _views.get(kind)
        if names is None:
            raise ImproperlyConfigured(f"No URL shows {kind!r}: see blog.models.content_paths.")
    return names


def _load_urlconf():
    # The URLconf provides the paths as it is imported; reverse() imports it the same way.
    get_resolver(get_urlconf()).urlconf_module  # noqa: B018 (imported on first access)
