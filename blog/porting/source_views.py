"""The notes as Markdown, served (docs/reading.md#markdown-and-llmstxt): a published note's
source at its address + ``index.md``, and ``llms.txt``/``llms-full.txt`` per interface.

Public and kept like the pages: each response names the parts it shows
(:func:`blog.caching.parts.depend_on`) and says ``Cache-Control: public``, so the page cache
keeps it (``markdown`` is one of its namespaces) until what it shows changes. Off
(``BIJI_LLMS_TXT``), every one of them is a 404.
"""

import functools

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect
from django.utils.cache import patch_cache_control
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from blog.caching import memoised, parts, site_settings
from blog.porting import llms_txt, markdown_source
from blog.text.bilingual import html_lang


def served(view):
    """``view`` while the sources are on (a 404 otherwise), for GET and HEAD, kept by browsers
    and shared caches as long as the pages."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if not settings.BIJI_LLMS_TXT:
            raise Http404("The Markdown sources are off (BIJI_LLMS_TXT).")
        response = view(request, *args, **kwargs)
        patch_cache_control(response, public=True, max_age=settings.BIJI_PAGE_MAX_AGE)
        return response

    return require_safe(wrapped)


@served
def note_source(request, slug):
    """A published note's Markdown source, in its language's interface; the other interface's
    address redirects there. Drafts, scheduled notes and unknown slugs: 404."""
    site = site_settings()
    source = memoised(
        f"note-source:{slug}",
        lambda: markdown_source.source_at(slug, site),
        keep=lambda found: found is not None,  # made-up slugs add no entries
    )
    if source is None:
        raise Http404("No published note here.")
    if source.language != get_language():
        return HttpResponsePermanentRedirect(markdown_source.source_path(slug, source.language))
    parts.depend_on(*source.parts)
    response = HttpResponse(source.text, content_type=markdown_source.MEDIA_TYPE)
    response.headers["Content-Language"] = html_lang(source.language)
    # The page is the note's address: search engines index it, not this copy.
    response.headers["Link"] = f'<{source.page_url}>; rel="canonical"'
    return response


def shows_the_lists(view):
    """Which notes each interface lists and what their entries show: moved by every edit of a
    note, a tag or a series (the sitemap's part) and by a note entering or leaving the lists."""

    @functools.wraps(view)
    def wrapped(request):
        parts.depend_on(parts.NOTES, parts.SITEMAP)
        return view(request)

    return wrapped


@served
@shows_the_lists
def llms_index(request):
    text = llms_txt.index_text(site_settings(), get_language())
    return HttpResponse(text, content_type=llms_txt.MEDIA_TYPE)


@served
@shows_the_lists
def llms_full(request):
    text = llms_txt.full_text(site_settings(), get_language())
    return HttpResponse(text, content_type=llms_txt.MEDIA_TYPE)
