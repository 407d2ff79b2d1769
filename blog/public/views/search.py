"""The search page: /search/?q=… (Chinese interface) and /en/search/?q=… (English)."""

import secrets
import threading
from functools import partial

from django.conf import settings
from django.core.paginator import Paginator
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.generic import ListView

from blog.caching import memoised, site_settings
from blog.public.pagination import get_page
from blog.public.views.base import CachePolicyMixin
from blog.search.deadline import SearchTooLong, search_deadline
from blog.search.glossary import expand, load_glossary
from blog.search.query import PER_PAGE, Listed, load_results, ranked_ids
from blog.search.ranked import hidden_by_pairs, ranked
from blog.search.text import MAX_QUERY_CHARS, parse_query


class _GlossaryCopy:
    """The glossary as search reads it, kept in this process per content state, as unpickling it
    from the shared cache costs too much per search (docs/performance.md)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.key, self.glossary = None, None

    def __call__(self):
        key = memoised("search-glossary", partial(secrets.token_hex, 8))
        with self.lock:
            if key == self.key:
                return self.glossary
        glossary = load_glossary()
        with self.lock:
            self.key, self.glossary = key, glossary
        return glossary


_glossary = _GlossaryCopy()


def also_searched(query, language):
    """The glossary forms the search added, the interface language's first: [(form, lang)]."""
    return sorted(query.also, key=lambda form: form[1] != language)


class SearchView(CachePolicyMixin, ListView):
    """Published notes matching ``q``, ranked title, then tags, then body, newest first; a glossary
    term's form finds its other forms too. Any ``q`` gets a page, whatever it holds."""

    template_name = "blog/search.html"
    context_object_name = "results"
    paginate_by = PER_PAGE
    # The index follows a publication after the commit: results are never kept by a cache
    # (browsers revalidate; the content hash of ConditionalGetMiddleware answers with 304).
    revalidate = True
    too_long = False

    def get(self, request, *args, **kwargs):
        query = parse_query(request.GET.get("q", ""))
        if query.terms:
            # Read once per content state (the glossary's edits move it), not per search.
            query = expand(query, _glossary())
        self.query = query
        try:
            with search_deadline(settings.BIJI_SEARCH_SECONDS):
                response = super().get(request, *args, **kwargs)
        except SearchTooLong:
            # The page, without results, says so (and how to narrow the search).
            self.too_long = True
            response = super().get(request, *args, **kwargs)
        # Result pages are endless and thin: not for search engines' indexes.
        response["X-Robots-Tag"] = "noindex"
        return response

    def get_queryset(self):
        """The ranked ids as ``Paginator`` reads them: in rank order from the index where the
        database can (:mod:`blog.search.ranked`), else by the general plan; at most
        ``LISTED``."""
        others, language = site_settings().show_other_languages, get_language()
        if self.too_long:
            return Listed([])
        if others:
            # The pairs' hidden sides change with a publication: kept per content state.
            hidden = memoised("search-hidden-by-pairs", hidden_by_pairs).get(language, ())
            found = ranked(self.query, frozenset(hidden))
            if found is not None:
                return found
        return Listed(ranked_ids(self.query, interface=language, others=others))

    def paginate_queryset(self, queryset, page_size):
        page = get_page(Paginator(queryset, page_size), self.request.GET.get(self.page_kwarg))
        page.object_list = load_results(page.object_list, self.query)
        return page.paginator, page, page.object_list, page.has_other_pages()

    def get_context_data(self, **kwargs):
        if self.query.text:
            title = _("Search: %(query)s") % {"query": self.query.text}
        else:
            title = _("Search")
        return super().get_context_data(
            search=self.query,
            query=self.query.text,  # the header's search box shows it
            also_searched=also_searched(self.query, get_language()),
            capped=self.object_list.capped,
            too_long=self.too_long,
            search_seconds=settings.BIJI_SEARCH_SECONDS,
            title=title,
            noindex=True,
            max_query_chars=MAX_QUERY_CHARS,
            **kwargs,
        )
