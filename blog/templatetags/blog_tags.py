"""Template helpers for biji's public pages: absolute URLs, languages and structured data."""

import json
from urllib.parse import urlencode

from django import template
from django.conf import settings
from django.urls import translate_url
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, pgettext

from blog.caching import rendered_entries
from blog.caching.chrome import chrome
from blog.text.bidi import strip_explicit_bidi
from blog.text.bilingual import html_lang
from blog.text.site_url import absolute_url
from blog.text.validators import safe_url

register = template.Library()

# Escape what could end a <script> block or start a comment, as json_script does.
_JSON_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


register.filter("lang_attr", html_lang)
register.filter("safe_url", safe_url)


@register.filter("strip_explicit_bidi", is_safe=True)
def plain_title(value):
    """A title shown as plain text (the window's title, ``og:title``): without the controls
    that would reverse it and what follows it (:mod:`blog.text.bidi`)."""
    return strip_explicit_bidi(str(value or ""))


@register.tag("chrome")
def do_chrome(parser, token):
    """``{% chrome "name" [vary …] %}…{% endchrome %}``: a part of the site's chrome, rendered once
    per content state and language (:mod:`blog.caching.chrome`). It may show nothing of the page;
    ``vary`` names what else it shows."""
    name, *vary = token.split_contents()[1:]
    nodelist = parser.parse(("endchrome",))
    parser.delete_first_token()
    return ChromeNode(
        parser.compile_filter(name), [parser.compile_filter(each) for each in vary], nodelist
    )


class ChromeNode(template.Node):
    def __init__(self, name, vary, nodelist):
        self.name, self.vary, self.nodelist = name, vary, nodelist

    def render(self, context):
        vary = [each.resolve(context) for each in self.vary]
        html = chrome(self.name.resolve(context), lambda: self.nodelist.render(context), *vary)
        return mark_safe(html)  # noqa: S308 (our template's output, escaped as it rendered)


@register.simple_tag
def note_entries(notes, first_number=None, hide_series=False):
    """Each note's list entry, kept per content version (:mod:`blog.caching.fragments`)."""
    return rendered_entries(notes, first_number=first_number, hide_series=hide_series)


@register.simple_tag
def absolute(path):
    return absolute_url(path)


@register.simple_tag
def other_language():
    """The lang attribute for the name shown beside the interface-language one."""
    current = translation.get_language() or settings.LANGUAGE_CODE
    for code, _name in settings.LANGUAGES:
        if code != current:
            return html_lang(code)
    return html_lang(current)


def _page_suffix(context):
    page = context.get("page_obj")
    return f"?page={page.number}" if page is not None and page.number > 1 else ""


@register.simple_tag(takes_context=True)
def page_url(context, number):
    """The current list's URL for page ``number``, keeping the other query parameters (the
    search query); page 1 has no ``page`` parameter, so it has one URL only."""
    request = context["request"]
    query = request.GET.copy()
    query.pop("page", None)
    if number != 1:
        query["page"] = number
    return f"?{query.urlencode()}" if query else request.path


@register.simple_tag(takes_context=True)
def canonical_url(context):
    """This page's absolute URL, keeping only the page number of a paginated list."""
    request = context.get("request")
    path = request.path if request is not None else "/"
    return absolute_url(path) + _page_suffix(context)


def _switch_suffix(context, request):
    """What a page in the other language keeps of this one's query: the search and the page."""
    if context.get("search") is not None:
        query = request.GET.copy()
        kept = {key: query[key] for key in ("q", "page") if query.get(key)}
        return f"?{urlencode(kept)}" if kept else ""
    return _page_suffix(context)


def _note_in(context, code):
    """On a note page, the note to show in the interface ``code``: its translation when the
    translation is written in that language, else the note itself; None elsewhere."""
    note, counterpart = context.get("note"), context.get("counterpart")
    if note is None:
        return None
    return counterpart if counterpart is not None and counterpart.language == code else note


@register.simple_tag(takes_context=True)
def language_versions(context):
    """This page in each interface language: [{code, hreflang, name, url, current}].

    A note switches to its published translation; a search keeps its query; a view may name another
    page where this one would be empty (``language_fallbacks``), which gets no hreflang.
    """
    request = context.get("request")
    if request is None:
        return []
    current = translation.get_language()
    suffix = _switch_suffix(context, request)
    fallbacks = context.get("language_fallbacks") or {}
    versions = []
    for code, _name in settings.LANGUAGES:
        note = _note_in(context, code)
        equivalent = code not in fallbacks
        if not equivalent:
            url, kept = fallbacks[code], ""
        elif note is not None and not context.get("share_link"):
            url, kept = note_url_in(note, code), suffix
        else:
            url, kept = translate_url(request.path, code), suffix
            if url == request.path and code != current:
                return []  # not a page that exists in every language (a 404, say)
        versions.append(
            {
                "code": code,
                "hreflang": html_lang(code),
                "name": translation.get_language_info(code)["name_local"],
                "url": url + kept,
                "absolute_url": absolute_url(url) + kept,
                "current": code == current,
                "equivalent": equivalent,
            }
        )
    return versions


@register.filter
def localize_path(url):
    """A site path typed by the author (``/series/``) in the current interface language."""
    url = str(url or "")
    if not url.startswith("/") or url.startswith("//"):
        return url
    current = translation.get_language()
    with translation.override(settings.LANGUAGE_CODE):
        return translate_url(url, current)


@register.filter
def jsonld(data):
    """A JSON-LD data block, escaped like ``json_script`` (not executable, so CSP allows it).
    Its names and headline are plain text to a search engine: no control that reverses them."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True).translate(_JSON_ESCAPES)
    text = strip_explicit_bidi(text)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # noqa: S308


@register.simple_tag
def note_url_in(note, code=None):
    """A note's path in the interface of ``code`` (its own language by default)."""
    with translation.override(code or note.language):
        return note.get_absolute_url()


LANGUAGE_MARKS = {"en": "EN", "zh-hans": "中文"}


@register.simple_tag
def language_marker(note):
    """On a list entry written in the other language: a visible "EN" / "中文" (in that
    language) and, for screen readers, what it means in the interface's language."""
    current = translation.get_language() or settings.LANGUAGE_CODE
    if note.language == current:
        return ""
    names = {"en": pgettext("marker", "In English"), "zh-hans": pgettext("marker", "In Chinese")}
    return format_html(
        '<span class="lang-marker"><span lang="{}" aria-hidden="true">{}</span>'
        '<span class="visually-hidden" lang="{}">{}</span></span>',
        html_lang(note.language),
        LANGUAGE_MARKS.get(note.language, note.language),
        html_lang(current),
        names.get(note.language, note.language),
    )


@register.filter
def before_text(label):
    """A label ending in a colon, ready to stand before text: "Original: " in English,
    "原文：" in Chinese, whose full-width colon carries its own space."""
    label = str(label)
    return label if label.endswith(FULL_WIDTH_PUNCTUATION) else label + " "


FULL_WIDTH_PUNCTUATION = tuple("：，。；！？、")


@register.simple_tag
def source_credit(note):
    """Where a translated article comes from: "Original: <title>, by <author>, <date>.", linked when
    its URL is known."""
    link = '<a href="{}" rel="noopener external">{}</a>'
    url = safe_url(note.source_url)
    if note.source_title:
        title = format_html(link, url, note.source_title) if url else note.source_title
        original = before_text(pgettext("source of a translated article", "Original:"))
        parts = [format_html("{}<cite>{}</cite>", original, title)]
    elif url:
        parts = [format_html(link, url, gettext("Original article"))]
    else:
        parts = []
    if note.source_author:
        parts.append(gettext("by %(author)s") % {"author": note.source_author})
    if note.source_date:
        parts.append(
            format_html(
                '<time datetime="{}">{}</time>',
                note.source_date.isoformat(),
                date_format(note.source_date, "DATE_FORMAT"),
            )
        )
    separator = pgettext("between the parts of a list", ", ")
    full_stop = pgettext("end of a sentence", ".")
    return format_html(
        "{}{}", format_html_join(separator, "{}", ((part,) for part in parts)), full_stop
    )


@register.filter
def join_numbers(numbers):
    """3, 4 and 5 (Chinese: 3、4 和 5), for a sentence."""
    numbers = [str(number) for number in numbers]
    if len(numbers) < 2:
        return "".join(numbers)
    separator = pgettext("between numbers in a sentence", ", ")
    last = pgettext("before the last of numbers in a sentence", " and ")
    return separator.join(numbers[:-1]) + last + numbers[-1]


@register.filter
def datetime_attr(value):
    """A datetime as HTML's ``datetime`` attribute accepts it: local time in whole seconds with
    its offset (``date:'c'`` writes six-digit fractions, which the HTML spec does not allow)."""
    if not value:
        return ""
    return timezone.localtime(value).replace(microsecond=0).isoformat()
