"""Template helpers for biji's public pages: absolute URLs, languages and structured data."""

import json

from django import template
from django.conf import settings
from django.urls import translate_url
from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

# Escape what could end a <script> block or start a comment, as json_script does.
_JSON_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def absolute_url(path):
    """``settings.SITE_URL`` + ``path``; full URLs pass through unchanged."""
    path = str(path or "/")
    if path.startswith(("http://", "https://")):
        return path
    return settings.SITE_URL + (path if path.startswith("/") else "/" + path)


@register.filter
def lang_attr(code):
    """A language code as HTML wants it: ``zh-hans`` → ``zh-Hans``, ``en`` → ``en``."""
    return translation.to_locale(code or settings.LANGUAGE_CODE).replace("_", "-")


@register.simple_tag
def absolute(path):
    return absolute_url(path)


@register.simple_tag
def other_language():
    """The lang attribute for the name shown beside the interface-language one."""
    current = translation.get_language() or settings.LANGUAGE_CODE
    for code, _name in settings.LANGUAGES:
        if code != current:
            return lang_attr(code)
    return lang_attr(current)


def _page_suffix(context):
    page = context.get("page_obj")
    return f"?page={page.number}" if page is not None and page.number > 1 else ""


@register.simple_tag(takes_context=True)
def canonical_url(context):
    """This page's absolute URL, keeping only the page number of a paginated list."""
    request = context.get("request")
    path = request.path if request is not None else "/"
    return absolute_url(path) + _page_suffix(context)


@register.simple_tag(takes_context=True)
def language_versions(context):
    """This page in each interface language: [{code, hreflang, name, url, current}]."""
    request = context.get("request")
    if request is None:
        return []
    current = translation.get_language()
    suffix = _page_suffix(context)
    versions = []
    for code, _name in settings.LANGUAGES:
        url = translate_url(request.path, code)
        if url == request.path and code != current:
            return []  # not a page that exists in every language (a 404, say)
        versions.append(
            {
                "code": code,
                "hreflang": lang_attr(code),
                "name": translation.get_language_info(code)["name_local"],
                "url": url + suffix,
                "absolute_url": absolute_url(url) + suffix,
                "current": code == current,
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
    """A JSON-LD data block, escaped like ``json_script`` (not executable, so CSP allows it)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True).translate(_JSON_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # noqa: S308


@register.simple_tag
def note_url_in(note, code=None):
    """A note's path in the interface of ``code`` (its own language by default)."""
    with translation.override(code or note.language):
        return note.get_absolute_url()
