"""A note's credits on its page: who wrote it with the site's author and who translated it, named
as the author wrote them (in the note's language) inside the interface's sentence."""

from django import template
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext, pgettext

from blog.models.credits import coauthor_names
from blog.text.bilingual import html_lang

register = template.Library()

FULL_WIDTH_STOPS = ("。", "！", "？")


def names_html(names, language):
    """Names as "A, B and C" / "甲、乙 和 丙", in the interface's words; each name marked with
    the note's language when the interface speaks another."""
    foreign = html_lang(language) != html_lang(get_language())
    if foreign:
        shown = [format_html('<span lang="{}">{}</span>', html_lang(language), n) for n in names]
    else:
        shown = [format_html("{}", name) for name in names]
    if len(shown) < 2:
        return format_html_join("", "{}", ((name,) for name in shown))
    separator = pgettext("between names in a list", ", ")
    last = pgettext("before the last of names in a list", " and ")
    return format_html(
        "{}{}{}",
        format_html_join(separator, "{}", ((name,) for name in shown[:-1])),
        last,
        shown[-1],
    )


def _sentence(text, names):
    # The sentence is escaped before the names' markup goes in.
    return mark_safe(escape(text) % {"names": names})  # noqa: S308


@register.simple_tag
def coauthors_credit(note):
    """The co-authors: "Written with A and B" / "与 A 和 B 合著", or "" without any."""
    names = coauthor_names(note)
    if not names:
        return ""
    return _sentence(gettext("Written with %(names)s"), names_html(names, note.language))


@register.simple_tag
def translator_credit(note):
    """The translator: "Translated by A" / "译者：A", or "" without one."""
    translator = (note.translator or "").strip()
    if not translator:
        return ""
    return _sentence(gettext("Translated by %(names)s"), names_html([translator], note.language))


@register.simple_tag
def translator_sentence(note):
    """The translator as a sentence after the source box's: " Translated by A." / "译者：A。" (a
    full-width stop before it needs no space), or "" without a translator."""
    credit = translator_credit(note)
    if not credit:
        return ""
    stop = pgettext("end of a sentence", ".")
    space = "" if stop in FULL_WIDTH_STOPS else " "
    return format_html("{}{}{}", space, credit, stop)
