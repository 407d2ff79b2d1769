"""The static site an export builds into: each generator's configuration, and biji's addresses.

:func:`config_files` declares both languages (zh-hans at the root, English under ``/en/``)
and biji's addresses, deterministic for a site title and ``SITE_URL`` (docs/moving.md).

May import models, ``blog.text``, :mod:`.records` and Django.
"""

import json

from django.conf import settings
from django.utils import translation

from blog.models import Language
from blog.porting.records import NOTE, PAGE
from blog.text.slug_urls import slug_path

DEFAULT_LANGUAGE = Language.CHINESE
LANGUAGES = (
    # (code, the language's own name, BCP 47 tag for <html lang>)
    (Language.CHINESE, "中文", "zh-Hans"),
    (Language.ENGLISH, "English", "en"),
)
# What the exported package.json asks npm for: the versions package.json pins for the tests.
HEXO_PACKAGES = {"hexo": "8.1.2", "hexo-cli": "4.3.2", "hexo-renderer-marked": "7.0.1"}
HEADER = "Written by biji's export (manage.py export_markdown): both languages, biji's addresses."
STAND_IN = "slug0stand0in"


def address(kind, slug, language):
    """The path biji serves a note or page at in ``language`` (``/en/notes/<slug>/``)."""
    view = "blog:page-detail" if kind == PAGE else "blog:note-detail"
    with translation.override(language):
        return slug_path(view, slug)


def pattern(kind, placeholder):
    """biji's address of a note or page in the default language, the slug a placeholder."""
    return address(kind, STAND_IN, DEFAULT_LANGUAGE).replace(STAND_IN, placeholder)


def _quoted(value):
    """A quoted string both TOML and YAML read: JSON's (its escapes are theirs too)."""
    return json.dumps(value, ensure_ascii=False)


def hugo(title):
    languages = "".join(
        f"\n[languages.{code}]\nlanguageCode = {_quoted(tag)}\nlanguageName = {_quoted(name)}\n"
        f"weight = {weight}\n"
        for weight, (code, name, tag) in enumerate(LANGUAGES, start=1)
    )
    return (
        f"# {HEADER}\n"
        f"baseURL = {_quoted(settings.SITE_URL + '/')}\n"
        f"title = {_quoted(title)}\n"
        f"defaultContentLanguage = {_quoted(DEFAULT_LANGUAGE)}\n"
        "defaultContentLanguageInSubdir = false\n"
        f"{languages}\n"
        "[permalinks]\n"
        f"posts = {_quoted(pattern(NOTE, ':slug'))}\n"
        f"pages = {_quoted(pattern(PAGE, ':slug'))}\n\n"
        "# biji's Markdown may hold HTML (figures); quotes and dashes stay as written, formulas\n"
        "# with them.\n"
        "[markup.goldmark.renderer]\nunsafe = true\n\n"
        "[markup.goldmark.extensions]\ntypographer = false\n"
    )


def jekyll(title):
    codes = ", ".join(_quoted(code) for code, _name, _tag in LANGUAGES)
    return (
        f"# {HEADER}\n"
        f"title: {_quoted(title)}\n"
        f"url: {_quoted(settings.SITE_URL)}\n"
        "plugins: [jekyll-polyglot]\n"
        f"languages: [{codes}]\n"
        f"default_lang: {_quoted(DEFAULT_LANGUAGE)}\n"
        "# Served once, not per language: the media, at /media/ as in biji.\n"
        "exclude_from_localization: [media]\n"
        "# One language after the other: polyglot's parallel build forks a process per language,\n"
        "# and one that dies (two racing to create .jekyll-cache) loses its language silently.\n"
        "parallel_localization: false\n"
        f"permalink: {_quoted(pattern(NOTE, ':title'))}\n"
        "defaults:\n"
        '- scope: {path: "", type: posts}\n'
        "  values: {layout: post}\n"
    )


def hexo(title):
    codes = ", ".join(_quoted(code) for code, _name, _tag in LANGUAGES)
    return (
        f"# {HEADER}\n"
        f"title: {_quoted(title)}\n"
        f"url: {_quoted(settings.SITE_URL)}\n"
        f"language: [{codes}]\n"
        "# Each exported note states its address in permalink; this is for notes written later.\n"
        f"permalink: {_quoted(pattern(NOTE, ':title').lstrip('/'))}\n"
        "future: false  # a scheduled note waits for its time, as in biji\n"
        "marked:\n"
        "  breaks: false  # a line break inside a paragraph is a space, as in biji\n"
        "  smartypants: false  # quotes and dashes stay as written, formulas with them\n"
    )


def hexo_package():
    package = {
        "name": "biji-export",
        "version": "0.0.0",
        "private": True,
        "hexo": {"version": HEXO_PACKAGES["hexo"]},
        "dependencies": HEXO_PACKAGES,
    }
    return json.dumps(package, indent=2) + "\n"


def config_files(fmt, title):
    """The configuration files of ``fmt``'s site: ``{path in the export: text}``."""
    if fmt.name == "hugo":
        return {"hugo.toml": hugo(title)}
    if fmt.name == "jekyll":
        return {"_config.yml": jekyll(title)}
    if fmt.name == "hexo":
        return {"_config.yml": hexo(title), "package.json": hexo_package()}
    return {}
