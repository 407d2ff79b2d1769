"""A published note's citation: its files beside its page (``cite.bib``, ``cite.json``,
``cite.ris``), the "Cite" box and the citation meta tags of the page, from one record
(:func:`blog.models.citation.citation_of`)."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from django.http import Http404, HttpResponse
from django.views import View

from blog.caching import memoised, parts, site_settings
from blog.models import Note
from blog.models.citation import FIELDS, citation_of
from blog.public.views.base import CachePolicyMixin
from blog.text.citation import bibtex, csl_json, ris
from blog.text.citation.reference import reference_html


@dataclass(frozen=True)
class Format:
    write: Callable
    media_type: str
    extension: str


FORMATS = {
    module.EXTENSION: Format(write, module.MEDIA_TYPE, module.EXTENSION)
    for module, write in (
        (bibtex, bibtex.bibtex),
        (csl_json, csl_json.csl_json),
        (ris, ris.ris),
    )
}


def cite_box(note):
    """What a note's page shows of its citation (includes/cite_box.html and citation_meta.html)."""
    citation = citation_of(note, site_settings())
    return {"citation": citation, "citation_reference": reference_html(citation)}


def published_citation(slug):
    """``(pk, citation)`` of the published note at ``slug``, or None: one query."""
    note = Note.objects.published().filter(slug=slug).only("pk", *FIELDS).first()
    if note is None:
        return None
    return note.pk, citation_of(note, site_settings())


class CitationView(CachePolicyMixin, View):
    """One of a published note's citation files (``extension``, from the URLconf); a draft, a
    scheduled note or a made-up slug is a 404, for staff too: only a published note is cited.
    The same file in either interface: the note's own address, in its own language."""

    extension = None

    def get(self, request, slug):
        found = memoised(
            f"citation:{slug}",
            partial(published_citation, slug),
            keep=lambda found: found is not None,  # made-up slugs add no entries
        )
        if found is None:
            raise Http404("No published note here.")
        pk, citation = found
        parts.depend_on(parts.note(pk))
        file_format = FORMATS[self.extension]
        response = HttpResponse(
            file_format.write(citation), content_type=f"{file_format.media_type}; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{slug}.{file_format.extension}"'
        response["Content-Language"] = citation.language_tag
        # The page is what search engines should find; the files are for reference managers.
        response["X-Robots-Tag"] = "noindex"
        return response


def cite_as(extension):
    """The view of the citation file ending in ``extension`` (a key of :data:`FORMATS`)."""
    if extension not in FORMATS:
        raise ValueError(f"No citation format {extension!r}: {sorted(FORMATS)}")
    return CitationView.as_view(extension=extension)
