"""A translated pair side by side: the parallel view at ``{note URL}parallel/``, aligned by
:mod:`blog.text.alignment`, with the original's changed blocks marked. A reading aid: ``noindex``,
canonical to the note."""

import re

from django.http import Http404
from django.utils.translation import get_language
from django.views import generic

from blog.caching import parts
from blog.models import Note, Status
from blog.models.translation_sync import is_original_of
from blog.public.views.base import CachePolicyMixin, can_preview
from blog.text.alignment import align, from_stored, passages
from blog.text.site_url import absolute_url

# What the page does not show of either note: the stored bodies but the parallel blocks.
UNSHOWN_FIELDS = ("body", "body_html", "toc_html", "plain_text", "summary")
# Anchors inside a note's blocks: its headings' ids and the links to them, its footnotes'.
_ID_RE = re.compile(r'(\sid=")([^"]*")')
_FRAGMENT_RE = re.compile(r'(\shref="#)([^"]*")')


class NoteParallelView(CachePolicyMixin, generic.TemplateView):
    """A published note and its published translation side by side (404 otherwise, except
    for staff who may preview notes)."""

    template_name = "blog/note_parallel.html"

    def get(self, request, *args, **kwargs):
        self.original, self.translation = self.get_pair()
        return super().get(request, *args, **kwargs)

    def get_pair(self):
        """(original, translation), both in one query."""
        deferred = [
            f"{relation}{name}"
            for relation in ("", "translation__", "translated_from__")
            for name in UNSHOWN_FIELDS
        ]
        note = (
            Note.objects.select_related("translation", "translated_from")
            .defer(*deferred)
            .filter(slug=self.kwargs["slug"])
            .first()
        )
        other = note.counterpart if note is not None else None
        if other is None:
            raise Http404("No translated note here.")
        if not (note.is_published() and other.is_published()):
            # Only now is the session read: published pages never vary on the cookie.
            if not can_preview(self.request.user):
                raise Http404("No published translated note here.")
            self.private = True
        return (other, note) if is_original_of(other, note) else (note, other)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        original, translation = self.original, self.translation
        language = get_language()
        shown = translation if translation.language == language else original
        shown_passages = passages(align(*self.blocks(original, translation)))
        context.update(
            original=original,
            translation=translation,
            shown=shown,
            canonical=absolute_url(shown.get_absolute_url()),
            passages=shown_passages,
            changed_count=sum(block.changed for p in shown_passages for block in p.left),
            preview_status=self.preview_status(original, translation),
        )
        parts.depend_on(parts.note(original.pk), parts.note(translation.pk))
        return context

    @staticmethod
    def changed_hashes(original, translation):
        """Hashes of the original's blocks the translation was not in line with when last
        brought in line; none when the pair was never compared."""
        if not translation.synced_hashes:
            return set()
        return set(original.block_hashes.split()) - set(translation.synced_hashes.split())

    def blocks(self, original, translation):
        changed = self.changed_hashes(original, translation)
        return (
            from_stored(scoped_ids(original.parallel_blocks, "o-"), changed),
            from_stored(scoped_ids(translation.parallel_blocks, "t-")),
        )

    @staticmethod
    def preview_status(*notes):
        if all(note.is_published() for note in notes):
            return None
        return "draft" if any(note.status == Status.DRAFT for note in notes) else "scheduled"


def scoped_ids(stored, prefix):
    """A note's stored blocks with its anchors and the links to them prefixed, as both notes may
    have ``#gpu`` on one page."""
    return [
        [
            kind,
            digest,
            _FRAGMENT_RE.sub(rf"\g<1>{prefix}\g<2>", _ID_RE.sub(rf"\g<1>{prefix}\g<2>", html)),
        ]
        for kind, digest, html in stored
    ]
