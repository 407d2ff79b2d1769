"""Which URLs the page cache may keep: one spelling per page that exists, so strangers cannot
fill it. The path is the one Django reverses; the query is empty or a page number the view
reads, spelled canonically (``page=2``, not ``page=02``). A page past the end is the view's to
refuse (``private``, or a 404).
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
    """The path Django reverses for ``match``'s view and arguments, or None."""
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
