"""Tolerant pagination, shared by every list and the search results."""

from django.core.paginator import Page, Paginator


def get_page(paginator: Paginator, number) -> Page:
    """``Paginator.get_page``, plus ``?page=last``: a bad number gives the first page and a
    number past the end the last one, so no query string makes a list fail."""
    return paginator.get_page(paginator.num_pages if number == "last" else number)
