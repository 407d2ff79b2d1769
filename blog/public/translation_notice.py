"""The notice on a note whose translation changed since it was last brought in line, in the note's
own language: a plain paragraph, not a live region, so a screen reader says it once."""

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


def correction_since(note, correction):
    """``correction``, the other version's newest, when ``note``'s text has not changed since it
    was made: what the notice tells (None: nothing to tell). A translation written or revised
    after the correction was made from the corrected text."""
    if correction is None:
        return None
    revised = note.text_changed_at or note.updated_at
    return correction if revised is None or correction.made_at > revised else None


def translation_notice(note, other, *, in_feed=False, correction=None) -> str:
    """The notice's HTML, or "" when ``note`` needs none; its links are paths on a page and absolute
    in a feed entry (``in_feed``). ``correction``, the newest of ``other``'s, is told with its
    text when ``note`` may lack it."""
    if not shows_notice(note, other):
        return ""
    correction = correction_since(note, correction)
    with translation.override(other.language):
        other_path = other.get_absolute_url()
    if in_feed:
        with translation.override(note.language):
            parallel = parallel_path(note, other)
        other_path, parallel = absolute_url(other_path), parallel and absolute_url(parallel)
    else:
        parallel = parallel_path(note, other)
    with translation.override(note.language):
        if correction is None:
            sentence, read_other = _wording(note, other)
        else:
            sentence, read_other = _correction_wording(note, other, correction)
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


def _date(note, moment):
    """A date in the notice: a ``<time>``, written as the note's language writes dates."""
    moment = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}">{}</time>',
        moment.date().isoformat(),
        dateformat.format(
            moment, DATE_FORMATS.get(note.language) or formats.get_format("DATE_FORMAT")
        ),
    )


def _wording(note, other):
    """(The sentence, the other version's link text), in the active language (the note's)."""
    date = _date(note, other.text_changed_at or other.updated_at)
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


def _correction_wording(note, other, correction):
    """As :func:`_wording`, for a change that was a correction: its date and its text, in the
    other version's language (plain text, escaped)."""
    values = {
        "date": _date(note, correction.made_at),
        "correction": format_html(
            '<span lang="{}">{}</span>', html_lang(other.language), correction.text
        ),
    }
    if is_original_of(other, note):
        text = gettext(
            "The original was corrected on %(date)s (“%(correction)s”); this translation may "
            "not include the correction."
        )
        read_other = gettext("Read the original")
    elif other.language == Language.ENGLISH:
        text = gettext(
            "The English version was corrected on %(date)s (“%(correction)s”); this page may "
            "not include the correction."
        )
        read_other = gettext("Read the English version")
    else:
        text = gettext(
            "The Chinese version was corrected on %(date)s (“%(correction)s”); this page may "
            "not include the correction."
        )
        read_other = gettext("Read the Chinese version")
    # The sentence is escaped before the date's and the correction's markup go in.
    return mark_safe(escape(text) % values), read_other  # noqa: S308
