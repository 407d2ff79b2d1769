"""WordPress exports (WXR, Tools → Export) → :class:`.records.NoteRecord`.

The HTML becomes Markdown with markdownify once WordPress's paragraphs (``wpautop``) are made
explicit and code and caption shortcodes translated (:mod:`.wp_shortcodes`); languages and
pairs come from :mod:`.wp_languages`. What each element is read as: docs/moving.md. XML is
parsed with defusedxml (an export is untrusted): one declaring entities is refused.
"""

import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

from defusedxml import DefusedXmlException, ElementTree
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from markdownify import MarkdownConverter

from blog.models import Language
from blog.porting.formats import WORDPRESS
from blog.porting.records import NOTE, PAGE, NoteRecord
from blog.porting.report import SKIPPED, shorten
from blog.porting.values import guess_language, language_code, url_path
from blog.porting.wording import FAILED, error_text, not_imported, refusal, unexpected, worded
from blog.porting.wp_languages import Languages
from blog.porting.wp_shortcodes import captions, put_back, take_code
from blog.text.cjk import CJK_RE
from blog.text.date_range import PUBLICATION
from blog.text.slugs import ascii_slug

NS = {
    "wp": "http://wordpress.org/export/1.2/",
    "content": "http://purl.org/rss/1.0/modules/content/",
    "excerpt": "http://wordpress.org/export/1.2/excerpt/",
    "dc": "http://purl.org/dc/elements/1.1/",
}
PUBLISHED = {"publish", "future"}
DRAFTS = {"draft", "pending", "private", "auto-draft"}
UNCATEGORIZED = {"uncategorized", "未分类"}
BLOCK_TAG = re.compile(r"^\s*<(p|div|h[1-6]|ul|ol|li|pre|blockquote|table|figure|hr|img)\b", re.I)
BLOCK_COMMENT = re.compile(r"<!--\s*/?wp:[^>]*-->\n?")
# Bounded, as every pattern here: a pattern scanning on to the end of the text from each
# opening it tries takes minutes on a text of many (an unclosed "[a " a hundred thousand times).
SHORTCODE = re.compile(r"\[(/?)([a-z_][\w-]*)\b[^\]\n]{0,2000}\]")
PRE = re.compile(r"<pre\b|</pre\s*>", re.IGNORECASE)
KEPT_NEWLINE = "\x00"  # a newline inside <pre>, while paragraphs are found
# Text that would read as HTML once in Markdown (``&lt;T&gt;`` written as text, an entity's
# name written out): kept as text.
TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
ENTITY_START = re.compile(r"&(?=#?\w+;)")
# A figure's caption while its figure is converted: characters no XML text can hold.
CAPTION_START, CAPTION_END = "\x01", "\x02"
CAPTION = re.compile(f"{CAPTION_START}([^{CAPTION_END}]*){CAPTION_END}")
UPLOADS = re.compile(r"https?://[^\s\"')]+?(/wp-content/uploads/[^\s\"')]+)")
# The table's custom-field entries, ``wp:postmeta[meta_key]``; its other entries are paths
# ElementTree finds (``category[@domain='post_tag']`` included).
POSTMETA = re.compile(r"wp:postmeta\[(?P<meta_key>[^\]]+)\]")
MANY = {"series", "tags"}  # every matching element, in order; other fields take the first
logger = logging.getLogger(__name__)


def _text(item, path):
    found = item.find(path, NS)
    return (found.text or "").strip() if found is not None else ""


def _date(value):
    """A GMT date of the export; ValueError with the reason when its year is outside
    :data:`~blog.text.date_range.PUBLICATION` (the item is then reported and skipped)."""
    if not value or value.startswith("0000"):
        return None
    refused = _("date %(value)s: %(reason)s")
    try:
        moment = datetime.strptime(value, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        year = re.match(r"(\d{5,})-", value)
        if year and PUBLICATION.error(int(year[1])):  # 10000-01-01: no datetime holds it
            reason = refusal(PUBLICATION)
            raise ValueError(worded(refused, value=repr(value), reason=reason)) from None
        return None
    if PUBLICATION.error(moment):
        raise ValueError(worded(refused, value=repr(value), reason=refusal(PUBLICATION)))
    return moment


def _meta(item):
    return {
        _text(meta, "wp:meta_key"): _text(meta, "wp:meta_value")
        for meta in item.findall("wp:postmeta", NS)
    }


def _fields(item):
    """The item's values by field, where the WORDPRESS table of :mod:`.formats` says, as
    WordPress wrote them: a list for series and tags, text for the rest, empty if missing."""
    meta = _meta(item)
    fields = {}
    for element, field in WORDPRESS:
        if fields.get(field):
            continue
        if postmeta := POSTMETA.fullmatch(element):
            fields[field] = meta.get(postmeta["meta_key"], "")
        elif field in MANY:
            fields[field] = [(found.text or "").strip() for found in item.findall(element, NS)]
        else:
            fields[field] = _text(item, element)
    return fields


def autop(html):
    """WordPress's paragraphs: blocks separated by blank lines, single newlines as <br>; the
    text of a ``<pre>`` is left as it is (blank lines and all), as ``wpautop`` leaves it."""
    html = BLOCK_COMMENT.sub("", html.replace("\r\n", "\n").replace(KEPT_NEWLINE, ""))
    html = _keep_pre_newlines(html)
    blocks = [block.strip() for block in re.split(r"\n\s*\n", html) if block.strip()]
    return "\n".join(
        block if BLOCK_TAG.match(block) else "<p>" + block.replace("\n", "<br>\n") + "</p>"
        for block in blocks
    ).replace(KEPT_NEWLINE, "\n")


def _keep_pre_newlines(html):
    """``html`` with the newlines from each ``<pre`` to its ``</pre>`` as KEPT_NEWLINE."""
    pieces, at, opened = [], 0, None
    for tag in PRE.finditer(html):
        if tag[0].startswith("</"):
            if opened is not None:
                pieces += [html[at:opened], html[opened : tag.end()].replace("\n", KEPT_NEWLINE)]
                at, opened = tag.end(), None
        elif opened is None:
            opened = tag.start()
    return "".join(pieces) + html[at:]


def _language_of_code(element):
    for name in element.get("class", []):
        if name.startswith("language-") or name.startswith("lang-"):
            return name.split("-", 1)[1]
    return ""


class Converter(MarkdownConverter):
    """markdownify, with figures and with text that would read as HTML kept as text."""

    def escape(self, text, parent_tags):
        text = super().escape(text, parent_tags)
        return TAG_START.sub("&lt;", ENTITY_START.sub("&amp;", text))

    def convert_figcaption(self, el, text, parent_tags):
        """A figure's caption, marked for :meth:`convert_figure` (each element is converted
        once: converting a figure's children again would cost twice per level of nesting)."""
        if el.parent is not None and el.parent.name == "figure":
            return f"{CAPTION_START}{text}{CAPTION_END}"
        return f"\n\n{text}\n\n"

    def convert_figure(self, el, text, parent_tags):
        """A figure with its caption, as Markdown in raw HTML (``md_in_html``) that biji renders
        as ``<figure>``: the image stays Markdown, so its file is found and stored like any."""
        found = CAPTION.search(text)
        content = CAPTION.sub("", text).strip() if found else ""
        words = " ".join(found[1].split()) if found else ""
        if not content or not words or "_inline" in parent_tags:
            return CAPTION.sub(lambda match: f"\n\n{match[1]}\n\n", text)
        return (
            f'\n\n<figure markdown="1">\n{content}\n'
            f'<figcaption markdown="span">{words}</figcaption>\n</figure>\n\n'
        )


def to_markdown(html):
    markdown = Converter(
        heading_style="ATX",
        bullets="-",
        code_language_callback=lambda el: _language_of_code(el.find("code") or el),
        escape_underscores=False,
        escape_asterisks=False,
    ).convert(autop(re.sub(f"[{CAPTION_START}{CAPTION_END}]", "", html)))
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip()
    return markdown + "\n" if markdown else ""


def body_markdown(html, local_uploads=lambda html: html):
    """A post's content as Markdown and the shortcodes kept as text (opening tags, in order); the
    code bypasses the conversion (:mod:`.wp_shortcodes`); ``local_uploads`` rewrites uploads."""
    html, code = take_code(html)
    html = captions(html)
    kept = [match[0] for match in SHORTCODE.finditer(html) if not match[1]]
    return put_back(to_markdown(local_uploads(html)), code), kept


def read_export(path, media, report):
    source = path.name
    try:
        tree = ElementTree.parse(path)
    except ElementTree.ParseError as error:
        line = error.position[0] if getattr(error, "position", None) else None
        unreadable = _("not a readable WordPress export: %(error)s")
        report.error(source, worded(unreadable, error=shorten(error)), line)
        return []
    except DefusedXmlException as error:
        if name := getattr(error, "name", None):
            entities = _(
                "not imported: the file declares XML entities (%(name)s), which biji refuses: "
                "they can expand without bound or read files on the server. WordPress's own "
                "exports declare none."
            )
            report.error(source, worded(entities, name=shorten(name, 40)))
        else:
            entities = _(
                "not imported: the file declares XML entities, which biji refuses: they can "
                "expand without bound or read files on the server. WordPress's own exports "
                "declare none."
            )
            report.error(source, entities)
        return []
    channel = tree.getroot().find("channel")
    if channel is None:
        report.error(source, _("not a WordPress export: no <channel>"))
        return []
    default_language = language_code(_text(channel, "language"))
    languages = Languages(channel)
    root = (media or path.parent).resolve()
    items = [(item, _fields(item)) for item in channel.findall("item")]
    attachments = {
        _text(item, "wp:post_id"): _text(item, "wp:attachment_url")
        for item, fields in items
        if fields["kind"] == "attachment"
    }
    records = []
    for number, (item, fields) in enumerate(items, start=1):
        kind, status = fields["kind"], fields["draft"]  # WordPress's post type and status
        name = f"{source}#item {number} (id {_text(item, 'wp:post_id') or '?'})"
        if kind == "attachment":
            continue
        if kind not in ("post", "page") or status == "trash":
            # "nav_menu_item (publish)": the type and status in WordPress's own words
            item = pgettext_lazy("import report", "item (%(status)s)")
            report.add(name, SKIPPED, f"{kind} ({status})" if kind else worded(item, status=status))
            continue
        try:
            record = _record(fields, name, default_language, attachments, root, report)
            _translation(record, item, fields, languages, report)
            records.append(record)
        except ValueError as error:
            report.error(name, not_imported(error_text(error, 300)))
            report.add(name, SKIPPED, FAILED)
        except Exception as error:
            logger.exception("Import: reading %s failed", name)
            report.error(name, not_imported(unexpected(error)))
            report.add(name, SKIPPED, FAILED)
    return records


def _record(fields, name, default_language, attachments, root, report):
    title = fields["title"]
    if not title:
        raise ValueError(_("no title"))
    status = fields["draft"]
    if status not in PUBLISHED | DRAFTS:
        raise ValueError(worded(_("unknown status %(status)s"), status=repr(status)))
    local = lambda m: m[1] if (root / m[1].lstrip("/")).is_file() else m[0]  # noqa: E731
    body, kept = body_markdown(fields["body"], lambda html: UPLOADS.sub(local, html))
    report.kept_shortcodes += [(name, None, text) for text in kept]
    categories = [c for c in fields["series"] if c.lower() not in UNCATEGORIZED]
    record = NoteRecord(
        source=name,
        kind=PAGE if fields["kind"] == "page" else NOTE,
        title=title,
        slug=ascii_slug(unquote(fields["slug"])) or ascii_slug(title),
        draft=status in DRAFTS,
        published_at=_date(fields["published_at"]),
        updated_at=_date(fields["updated_at"]),
        body=body,
        summary=to_markdown(fields["summary"]).strip(),
        tags=fields["tags"] + categories[1:],
        series=categories[0] if categories else "",
        translation_key=fields["translation_key"],
        base_dir=root,
        site_root=root,
    )
    record.language = language_code(fields["language"]) or _language_of_text(
        title, body, default_language
    )
    if (
        status in PUBLISHED
        and (link := fields["permalink"])
        and urlsplit(link).path not in ("", "/")
    ):
        record.old_paths = [url_path(link)]
    if thumbnail := attachments.get(fields["cover"]):
        record.cover = urlsplit(thumbnail).path
    return record


def _language_of_text(title, body, site_language):
    """A post's language when the export does not give it: the channel's ``<language>`` is one
    for every post, so on a Chinese site a post without Chinese is English; else the text."""
    if site_language == Language.CHINESE and CJK_RE.search(title + body):
        return site_language
    return guess_language(title, body)


def _translation(record, item, fields, languages, report):
    """The language and translation group from Polylang or WPML's fields, ahead of custom fields."""
    language, key, written = languages.of(item, _text(item, "wp:post_id"), _meta(item))
    if language:
        record.language = language
        record.translation_key = key or record.translation_key
    elif written:
        alone = _(
            "language %(language)s is neither Chinese nor English: imported without its "
            "translations, in the language of its text"
        )
        report.warn(record.source, worded(alone, language=repr(shorten(written, 20))))
        record.language = _language_of_text(record.title, record.body, "")
        record.translation_key = ""


__all__ = ["read_export", "to_markdown", "Path"]
