"""The glossary's terms marked in notes as they render, with a matcher built once per process and
glossary version, and which notes use which terms."""

import hashlib
from dataclasses import dataclass

from django.apps import apps
from django.db.models import Count, Max
from django.utils import translation

from blog.models import content_paths
from blog.rendering.terms import Marked, TermEntry, TermMatcher, tip_html
from blog.text.bilingual import html_lang


def _model(name):
    # By name, as Django's lazy relations do: the note's render step calls this module, and
    # the glossary's models import the note's.
    return apps.get_model("blog", name)


@dataclass(frozen=True)
class Glossary:
    """The matcher of one language at one version of the glossary, and each term's id."""

    version: tuple
    matcher: TermMatcher
    term_ids: dict[str, int]  # by slug


# (database alias, language) → Glossary. Replaced whole, never changed in place: a thread that
# reads an entry while another builds a newer one reads a consistent one.
_built: dict[tuple[str, str], Glossary] = {}
_EMPTY = TermMatcher(())
# The last notes marked: (alias, language, glossary version, HTML digest) → Marked.
_marked: dict[tuple, Marked] = {}
_MARKED_KEPT = 8


def forget():
    """Build the matchers again at their next use (a term changed in this process: its
    version may look the same, as when a clock stands still in a test)."""
    _built.clear()
    _marked.clear()


def glossary_version(using="default") -> tuple:
    """What changes whenever a term is added, changed or deleted (one query)."""
    state = (
        _model("Term").objects.using(using).aggregate(count=Count("pk"), latest=Max("updated_at"))
    )
    return state["count"], state["latest"]


def glossary(language, using="default") -> Glossary:
    """The glossary's matcher for notes in ``language``, built again only when it changed."""
    version = glossary_version(using)
    built = _built.get((using, language))
    if built is not None and built.version == version:
        return built
    terms = list(_model("Term").objects.using(using).order_by("slug")) if version[0] else []
    built = Glossary(
        version,
        TermMatcher(_entry(term, language) for term in terms) if terms else _EMPTY,
        {term.slug: term.pk for term in terms},
    )
    _built[(using, language)] = built
    return built


def _entry(term, language) -> TermEntry:
    with translation.override(language):
        href = f"{content_paths.path('glossary')}#{term.slug}"
    chinese = language.startswith("zh")
    own = term.definition_zh_html if chinese else term.definition_en_html
    return TermEntry(
        slug=term.slug,
        forms=tuple(term.forms(language)),
        href=href,
        tip=tip_html(term.definition_html(language)),
        # The definition in the note's language, else the other one (Term.definition_html).
        tip_lang=html_lang(language if own else ("en" if chinese else "zh-hans")),
    )


def mark_terms(html, language, using="default") -> tuple[Marked, set[int] | None]:
    """``html`` with the glossary's terms marked, and the ids of the terms used (None for an empty
    glossary). The last few results are kept, so a save marks once (``render_ahead``)."""
    built = glossary(language, using)
    key = (using, language, built.version, hashlib.blake2b(html.encode()).digest())
    marked = _marked.get(key)
    if marked is None:
        marked = built.matcher.mark(html)
        _marked[key] = marked
        while len(_marked) > _MARKED_KEPT:
            try:
                _marked.pop(next(iter(_marked)))
            except (KeyError, RuntimeError, StopIteration):  # another thread was first
                break
    if not built.version[0]:
        return marked, None
    return marked, {built.term_ids[slug] for slug in marked.used}


def store_term_uses(note, term_ids, using="default", *, created=False):
    """Make ``note``'s TermUse rows exactly ``term_ids``; only the rows that change are
    written (a new note has none to read)."""
    uses = _model("TermUse").objects.using(using)
    stored = set() if created else set(uses.filter(note=note).values_list("term_id", flat=True))
    if gone := stored - term_ids:
        uses.filter(note=note, term_id__in=gone).delete()
    for term_id in sorted(term_ids - stored):
        # One by one, with their signals (the glossary's cached pages follow them); and a
        # concurrent render of the same note may have written the row first.
        uses.get_or_create(note=note, term_id=term_id)
