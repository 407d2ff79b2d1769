"""A corrected note's newest correction, on top of its feed entry: one short paragraph in the note's
language (the entry's ``xml:lang``), its text the author's plain text, escaped."""

from django.utils import dateformat, formats, timezone, translation
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, pgettext

from blog.public.translation_notice import DATE_FORMATS
from blog.text.bilingual import html_lang


def correction_html(note, correction) -> str:
    """``<p>Corrected on 1 December 2026: …</p>``, or "" without a correction."""
    if correction is None:
        return ""
    made_at = timezone.localtime(correction.made_at)
    with translation.override(note.language):
        label = gettext("Corrected on %(date)s")
        colon = pgettext("after a label", ":")
        day = dateformat.format(
            made_at, DATE_FORMATS.get(note.language) or formats.get_format("DATE_FORMAT")
        )
    date = format_html('<time datetime="{}">{}</time>', made_at.date().isoformat(), day)
    # The label is escaped before the date's markup goes in.
    label = mark_safe(escape(label) % {"date": date})  # noqa: S308
    space = "" if colon.endswith("：") else " "
    return format_html(
        '<p class="correction" lang="{}"><strong>{}{}</strong>{}{}</p>',
        html_lang(note.language),
        label,
        colon,
        space,
        correction.text,
    )
