"""Which URLs the page cache may keep: one spelling per page that exists, so strangers cannot
fill it.

A page is kept only under its *canonical* URL:

* the path is the one Django reverses for the view and its arguments (``/archive/2024/``, not
  ``/archive/02024/``, which the ``int`` converter also accepts);
* the query string is empty, or exactly one parameter the view reads, spelled as a page number
  (``page=2``, never ``page=02``, ``page=2&page=2`` or ``page=%32``). Which parameter a view
  reads is the view's own: a paginated class-based view's ``page_kwarg``; ``p`` for a section's
  sitemap. Whether the number names a page that exists is the view's to say as well: a list
  asked for a page it does not have marks its answer ``private``
  (:class:`blog.public.views.base.CachePolicyMixin`), and Django's sitemap answers 404; neither
  is stored.

So the entries are bounded by the site's pages (times languages and encodings), whatever the
requests.
"""

import re

from django.urls import NoReverseMatch, reverse

# Views that read a query parameter but are not class-based (Django's sitemap view).
PARAMETERS_OF = {"sitemap-section": frozenset({"p"})}
PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,8}")


def parameters_of(match) -> frozenset:
    """The query parameters the view of ``match`` (a ResolverMatch) reads."""
    if match.view_name in PARAMETERS_OF:
        return PARAMETERS_OF[match.view_name]
    view_class = getattr(match.func, "view_class", None)
    if view_class is not None and getattr(view_class, "paginate_by", None):
        return frozenset({view_class.page_kwarg})
    return frozenset()


def canonical_path(match) -> str | None:
    """The path Django gives the view of ``match`` with its arguments, in the active language
    (None when it cannot be reversed, or without a match)."""
    if match is None:
        return None
    try:
        return reverse(match.view_name, args=match.args, kwargs=match.captured_kwargs)
    except NoReverseMatch:
        return None


def is_canonical(request, match) -> bool:
    """Whether ``request`` asks for its page by the one URL the page cache keeps it under."""
    query = request.META.get("QUERY_STRING", "")
    if query:
        name, equals, value = query.partition("=")
        if not equals or name not in parameters_of(match) or not PAGE_NUMBER.fullmatch(value):
            return False
    return canonical_path(match) == request.path
