"""``llms.txt`` and ``llms-full.txt`` (llmstxt.org) of one interface: its notes as the lists
choose them (a translated pair once, in the interface's language), each linked to its Markdown
source (:mod:`.markdown_source`).

``llms.txt`` is the site's title, its description as a quote, then a section per series (its
parts in order) and one of the other notes (newest first), then ``## Optional`` (the full text,
the archive): the newest :data:`LIST_LIMIT` notes, so a blog of any size gives a bounded list.
``llms-full.txt`` is the same header, then the newest notes' sources in full: at most
``BIJI_LLMS_FULL_MAX_NOTES`` of them and ``BIJI_LLMS_FULL_MAX_BYTES`` of text, read in chunks
of :data:`CHUNK` (three queries a chunk) and built once per content version by the page cache.
"""

import re

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from blog.models import Note
from blog.porting.markdown_source import licence_of, source_path, source_text
from blog.porting.markdown_source import published_sources as sources
from blog.text.bidi import strip_explicit_bidi
from blog.text.site_url import absolute_url

MEDIA_TYPE = "text/plain; charset=utf-8"
LIST_LIMIT = 1000  # entries in llms.txt (~300 bytes each)
CHUNK = 100  # notes read at a time for llms-full.txt
LISTED_FIELDS = (
    "title", "slug", "language", "excerpt", "published_at", "series", "series_position",
    "series__title_zh", "series__title_en", "series__slug",
)  # fmt: skip
LINK_TEXT = re.compile(r"([\\\[\]])")


def listed(language, others):
    """The published notes the lists of the interface ``language`` show, newest first."""
    notes = Note.objects.published().in_interface(language, others=others)
    return notes.order_by("-published_at", "-pk")


def one_line(text):
    return " ".join(str(text or "").split())


def link_text(title):
    return LINK_TEXT.sub(r"\\\1", one_line(strip_explicit_bidi(title)))


def header(site):
    """The title, the description as a quote (else the interface's tagline), the licence."""
    lines = [f"# {one_line(strip_explicit_bidi(site.title))}", ""]
    if summary := one_line(site.description) or one_line(site.tagline):
        lines += [f"> {summary}", ""]
    name, url = licence_of(site)
    if not site.licence.strip():
        licence = _("all rights reserved")
    elif url:
        licence = f"[{link_text(name)}]({url.replace('(', '%28').replace(')', '%29')})"
    else:
        licence = name
    lines += [_("Licence: %(licence)s.") % {"licence": licence}, ""]
    return lines


def entry(note):
    line = f"- [{link_text(note.title)}]({absolute_url(source_path(note.slug, note.language))})"
    excerpt = one_line(note.excerpt)
    return f"{line}: {excerpt}" if excerpt else line


def sections(notes):
    """``[(heading, notes)]``: each series' parts in order (the series with the newest part
    first), then the notes in no series, newest first (``notes`` is newest first)."""
    series, alone = {}, []
    for note in notes:
        if note.series_id:
            series.setdefault(note.series_id, []).append(note)
        else:
            alone.append(note)

    def in_order(part):
        return (part.series_position is None, part.series_position or 0, part.published_at)

    found = [
        (parts[0].series.display_name, sorted(parts, key=in_order)) for parts in series.values()
    ]
    if alone and found:
        found.append((pgettext("llms.txt section", "Other notes"), alone))
    elif alone:
        found.append((pgettext("llms.txt section", "Notes"), alone))
    return found


def index_text(site, language):
    """``llms.txt`` of the interface ``language`` (the active one)."""
    notes = list(
        listed(language, site.show_other_languages)
        .select_related("series")
        .only(*LISTED_FIELDS)[: LIST_LIMIT + 1]
    )
    lines = header(site)
    linked = _(
        "Each link is a note's Markdown source; its page is at that address less “index.md”."
    )
    lines += [linked, ""]
    if len(notes) > LIST_LIMIT:
        notes = notes[:LIST_LIMIT]
        newest = _("The newest %(count)s notes; the archive lists every one.")
        lines += [newest % {"count": f"{LIST_LIMIT:,}"}, ""]
    for heading, shown in sections(notes):
        lines += [f"## {heading}", "", *(entry(note) for note in shown), ""]
    full = absolute_url(reverse("markdown:llms-full-txt"))
    archive = absolute_url(reverse("blog:archive"))
    lines += [
        "## Optional",  # llmstxt.org's name for what a short context may leave out
        "",
        f"- [llms-full.txt]({full}): " + _("the newest notes in full, in one file"),
        f"- [{link_text(pgettext('navigation', 'Archive'))}]({archive}): "
        + _("every note, by month"),
        "",
    ]
    return "\n".join(lines)


def full_text(site, language):
    """``llms-full.txt`` of the interface ``language``: the header, then the newest notes'
    sources, within the bounds of the module docstring."""
    limit = max(settings.BIJI_LLMS_FULL_MAX_NOTES, 0)
    budget = settings.BIJI_LLMS_FULL_MAX_BYTES
    notes = sources().in_interface(language, others=site.show_other_languages)
    notes = notes.order_by("-published_at", "-pk")[: limit + 1]
    texts, size, complete = [], 0, True
    for note in notes.iterator(chunk_size=CHUNK):
        text = source_text(note, site)
        length = len(text.encode())
        if len(texts) == limit or size + length > budget:
            complete = False
            break
        texts.append(text)
        size += length
    lines = header(site)
    index = absolute_url(reverse("markdown:llms-txt"))
    if complete:
        said = _("Every note's Markdown source, newest first.")
    else:
        said = _("The newest %(count)s notes' Markdown sources; llms.txt lists more: %(url)s")
        said %= {"count": len(texts), "url": index}
    return "\n".join([*lines, said, "", ""]) + "\n".join(texts)
