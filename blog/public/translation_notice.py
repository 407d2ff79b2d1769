"""The reader's notice on a note whose translation changed since it was last brought in line.

A note behind its published other version (:func:`blog.models.translation_sync.is_behind`)
carries one sentence under its title, and at the top of its feed entry: which version changed
and when, with links to that version and to the pair's parallel view. The sentence is in the
note's own language, whatever the interface or the feed is in: it speaks about the text it
stands above, and is read with it.

Markup: a plain paragraph carrying the note's ``lang``, in the note's header right after the
title. Not a live region: it is there when the page loads, so a screen reader meets it once,
in reading order, after the heading; a region or an ``aria-label`` would make some of them say
it (or its label) a second time.

The date is the other version's ``text_changed_at``, written as each language writes a day in
running text ("2026 年 11 月 2 日", "2 November 2026"); numbers only in Chinese, so it needs
no translation catalogue.
"""

from django.utils import dateformat, formats, timezone, translation
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from blog.models import Language
from blog.models.translation_sync import is_behind, is_original_of
from blog.text.bilingual import html_lang
from blog.text.site_url import absolute_url
from blog.text.slug_urls import slug_path

DATE_FORMATS = {Language.CHINESE: "Y 年 n 月 j 日", Language.ENGLISH: "j F Y"}
# A sentence ending in a full-width stop needs no space before what follows it.
FULL_WIDTH_STOPS = tuple("。！？")


def shows_notice(note, other) -> bool:
    """``note`` tells its readers that ``other``, its published other version, changed since."""
    return other is not None and other.is_published() and is_behind(note, other)


def parallel_path(note, other) -> str | None:
    """The parallel view of a published pair, from ``note``'s side (None: not a published pair),
    in the current interface."""
    if other is None or not (note.is_published() and other.is_published()):
        return None
    return slug_path("blog:note-parallel", note.slug)


def translation_notice(note, other, *, in_feed=False) -> str:
    """The notice's HTML, or "" when ``note`` needs none.

    On a page (``in_feed=False``) the links are paths: the other version in its own language's
    interface (as the page's translation link), the parallel view in the reader's. In a feed
    entry they are absolute, and the parallel view is in the note's language, as the entry's
    own link.
    """
    if not shows_notice(note, other):
        return ""
    with translation.override(other.language):
        other_path = other.get_absolute_url()
    if in_feed:
        with translation.override(note.language):
            parallel = parallel_path(note, other)
        other_path, parallel = absolute_url(other_path), parallel and absolute_url(parallel)
    else:
        parallel = parallel_path(note, other)
    with translation.override(note.language):
        sentence, read_other = _wording(note, other)
        links = [
            format_html(
                '<a href="{}" hreflang="{}">{}</a>',
                other_path,
                html_lang(other.language),
                read_other,
            )
        ]
        if parallel:
            links.append(format_html('<a href="{}">{}</a>', parallel, gettext("Read side by side")))
    space = "" if sentence.endswith(FULL_WIDTH_STOPS) else " "
    return format_html(
        '<p class="translation-notice" lang="{}">{}{}{}</p>',
        html_lang(note.language),
        sentence,
        space,
        mark_safe(' <span aria-hidden="true">·</span> '.join(links)),  # noqa: S308 (escaped)
    )


def _wording(note, other):
    """(The sentence, the other version's link text), in the active language (the note's)."""
    changed = timezone.localtime(other.text_changed_at or other.updated_at)
    date = format_html(
        '<time datetime="{}">{}</time>',
        changed.date().isoformat(),
        dateformat.format(
            changed, DATE_FORMATS.get(note.language) or formats.get_format("DATE_FORMAT")
        ),
    )
    if is_original_of(other, note):
        text = gettext(
            "The original was updated on %(date)s; this translation may not include the changes."
        )
        read_other = gettext("Read the original")
    elif other.language == Language.ENGLISH:
        text = gettext(
            "The English version was updated on %(date)s; this page may not include the changes."
        )
        read_other = gettext("Read the English version")
    else:
        text = gettext(
            "The Chinese version was updated on %(date)s; this page may not include the changes."
        )
        read_other = gettext("Read the Chinese version")
    # The sentence is escaped before the date's markup goes in.
    return mark_safe(escape(text) % {"date": date}), read_other  # noqa: S308
