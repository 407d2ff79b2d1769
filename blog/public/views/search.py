"""The search page: /search/?q=… (Chinese interface) and /en/search/?q=… (English)."""

from django.core.paginator import Paginator
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.generic import ListView

from blog.caching import site_settings
from blog.public.pagination import get_page
from blog.public.views.base import CachePolicyMixin
from blog.search.query import PER_PAGE, load_results, ranked_ids
from blog.search.text import MAX_QUERY_CHARS, parse_query


class SearchView(CachePolicyMixin, ListView):
    """Published notes matching ``q``, ranked title, then tags, then body, newest first.

    Any ``q`` is answered with a page: empty (a friendly prompt), too long (cut to
    ``MAX_QUERY_CHARS`` characters), FTS syntax, control characters or odd Unicode.
    """

    template_name = "blog/search.html"
    context_object_name = "results"
    paginate_by = PER_PAGE
    # The index follows a publication after the commit: results are never kept by a cache
    # (browsers revalidate; the content hash of ConditionalGetMiddleware answers with 304).
    revalidate = True

    def get(self, request, *args, **kwargs):
        self.query = parse_query(request.GET.get("q", ""))
        response = super().get(request, *args, **kwargs)
        # Result pages are endless and thin: not for search engines' indexes.
        response["X-Robots-Tag"] = "noindex"
        return response

    def get_queryset(self):
        others = site_settings().show_other_languages
        return ranked_ids(self.query, interface=get_language(), others=others)

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
            title=title,
            noindex=True,
            max_query_chars=MAX_QUERY_CHARS,
            **kwargs,
        )
