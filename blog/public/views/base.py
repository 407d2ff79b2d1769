"""What every public view shares: the published rule, tolerant pagination and one cache policy."""

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404
from django.urls import reverse
from django.utils import translation
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language

from blog.caching import memoised, parts, site_settings
from blog.caching.canonical import canonical_path
from blog.models import Note
from blog.public.pagination import get_page

# Lists show titles, excerpts, dates and tags: the stored bodies stay in the database.
LIST_DEFERRED_FIELDS = ("body", "body_html", "toc_html", "plain_text", "parallel_blocks")


def can_preview(user, model="note"):
    """Staff who may change or view ``model`` see drafts and scheduled items at their URL."""
    return bool(
        user.is_authenticated
        and user.is_active
        and user.is_staff
        and (user.has_perm(f"blog.change_{model}") or user.has_perm(f"blog.view_{model}"))
    )


def listed_notes():
    """The published notes a list shows in the current interface (``NoteQuerySet.in_interface``):
    where lists, counts and archives start."""
    others = site_settings().show_other_languages
    return Note.objects.published().in_interface(get_language(), others=others)


def found_by_slug(kind, queryset, slug):
    """The row of ``queryset`` at ``slug``, kept once per content version under ``kind``, or a 404;
    a slug naming nothing is kept nowhere, so made-up URLs add no entries."""
    found = memoised(
        f"{kind}:{slug}", queryset.filter(slug=slug).first, keep=lambda row: row is not None
    )
    if found is None:
        raise Http404(f"No {queryset.model._meta.verbose_name} here.")
    return found


def language_fallbacks(listed, index):
    """``{code: index page}`` for each other language where ``listed()`` is false, so the language
    switch goes to the index instead of a 404."""
    current = get_language()
    fallbacks = {}
    for code, _name in settings.LANGUAGES:
        if code != current:
            with translation.override(code):
                if not listed():
                    fallbacks[code] = reverse(index)
    return fallbacks


class CachePolicyMixin:
    """One Cache-Control policy: public for ``BIJI_PAGE_MAX_AGE``; ``private`` never-cache,
    ``revalidate`` no-cache, ``shared = False`` out of shared caches (a page not its URL's, so
    made-up page numbers cannot fill one). The session is never read on the happy path."""

    private = False
    revalidate = False
    shared = True

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        if self.private:
            add_never_cache_headers(response)
            patch_cache_control(response, private=True)
            response.headers["X-Robots-Tag"] = "noindex, nofollow"
        elif response.status_code == 200 and self.revalidate:
            patch_cache_control(response, public=True, no_cache=True)
        elif response.status_code == 200 and not self.shared:
            patch_cache_control(response, private=True, max_age=settings.BIJI_PAGE_MAX_AGE)
        elif response.status_code == 200:
            patch_cache_control(response, public=True, max_age=settings.BIJI_PAGE_MAX_AGE)
        return response


class PublishedNoteMixin(CachePolicyMixin):
    """Lists of published notes, with tolerant pagination (``Paginator.get_page``): an odd
    ``?page=`` never raises, and such an answer is not shared. ``require_notes``: an empty list is a
    404."""

    model = Note
    context_object_name = "note_list"
    paginate_by = 10
    date_field = "published_at"
    allow_empty = True
    require_notes = False

    def list_parts(self):
        """The parts (:mod:`blog.caching.parts`) saying which notes this list holds; each
        entry names its note's part itself."""
        return (parts.NOTES,)

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        parts.depend_on(*self.list_parts())
        return response

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        # Whatever the template shows of them (an entry, or a title in the archive).
        parts.depend_on(*(parts.note(note.pk) for note in context["object_list"]))
        return context

    def get_queryset(self):
        # Built only if used: a list page whose count and notes are kept for the content
        # version (paginate_queryset) needs no query, and building the language rule's
        # filters was a fifth of the home page.
        return SimpleLazyObject(self.notes_listed)

    def get_template_names(self):
        # Django's ListView would also ask the list for its model's default template name,
        # building the query get_queryset() leaves unbuilt; every list names its template.
        return [self.template_name]

    def count_listed(self, queryset):
        """How many notes the list holds (kept per content version by the caller)."""
        return queryset.count()

    def notes_listed(self):
        # Not for_listing(): the tags are read only for entries not already kept
        # (blog.caching.fragments), so a page whose entries are all kept skips that query.
        return listed_notes().select_related("series").defer(*LIST_DEFERRED_FIELDS)

    def paginate_queryset(self, queryset, page_size):
        # The total reads every matching note, and a page's notes cost building and compiling
        # the list's query: both once per content version and list (the path names the list
        # and its language), not on every request. The canonical path, so /archive/02024/
        # (the int converter takes it) keeps no second copy. The paginator counts positions;
        # the page's notes are read for the positions it chose.
        path = canonical_path(self.request.resolver_match) or self.request.path
        count = memoised(f"list-count:{path}", lambda: self.count_listed(queryset))
        paginator = Paginator(range(count), page_size, allow_empty_first_page=True)
        number = self.request.GET.get(self.page_kwarg)
        page = get_page(paginator, number)
        positions = page.object_list
        page.object_list = memoised(
            f"list-page:{path}:{page.number}",
            lambda: list(queryset[positions.start : positions.stop]),
        )
        if number is not None and number != str(page.number):
            self.shared = False
        if self.require_notes and paginator.count == 0:
            raise Http404("No published notes here.")
        return paginator, page, page.object_list, page.has_other_pages()
