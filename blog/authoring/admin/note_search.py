"""The note list's search box: titles and slugs by any part, as Django's admin searches, and the
text by its words through the search index. Django's substring search of every body and summary
read each note's whole row (2.3 s at 100,000 notes on SQLite, docs/performance.md)."""

from django.db import connections
from django.utils.translation import gettext_lazy as _

from blog.search.backends import backend_for
from blog.search.text import parse_query


class NoteSearchMixin:
    search_fields = ["title", "slug"]
    search_help_text = _(
        "Titles and slugs by any part of them; the text by its words, as the site's search "
        "finds them, drafts included."
    )

    def get_search_results(self, request, queryset, search_term):
        by_name, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        query = parse_query(search_term)
        if not query.terms:
            return by_name, may_have_duplicates
        in_text = queryset.filter(backend_for(connections[queryset.db]).match(query.groups))
        return by_name | in_text, may_have_duplicates
