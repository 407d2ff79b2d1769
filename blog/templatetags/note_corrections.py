"""A note's corrections on its page: the line under its title that names the newest, dated in the
interface's words; their text is the author's plain text, always escaped."""

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, pgettext

from blog.templatetags.blog_tags import before_text
from blog.text.bilingual import html_lang

register = template.Library()


@register.simple_tag
def correction_time(correction):
    """The correction's date as a ``<time>``: the day in the interface's format, the moment in
    its ``datetime``."""
    made_at = timezone.localtime(correction.made_at)
    return format_html(
        '<time datetime="{}">{}</time>',
        made_at.isoformat(timespec="seconds"),
        date_format(made_at, "DATE_FORMAT"),
    )


@register.simple_tag
def correction_line(note, correction):
    """The line under the title: "Corrected on Dec. 1, 2026: <text>" / "更正（2026年12月1日）：
    <text>", the label linking to the list of corrections at the article's end."""
    label = gettext("Corrected on %(date)s")
    # The words are escaped before the date's markup goes in.
    label = mark_safe(escape(label) % {"date": correction_time(correction)})  # noqa: S308
    return format_html(
        '<p class="correction-line"><a href="#corrections">{}</a>{}<span lang="{}">{}</span></p>',
        label,
        before_text(pgettext("after a label", ":")),
        html_lang(note.language),
        correction.text,
    )
