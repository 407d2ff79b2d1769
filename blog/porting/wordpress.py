"""WordPress exports (WXR, Tools → Export) → :class:`.records.NoteRecord`.

Posts and pages become notes and pages (attachments are only read to find featured images;
trashed items, menus and other types are skipped, and said so). The HTML is converted to
Markdown with markdownify, after WordPress's own paragraphs (blank lines, ``wpautop``) are
made explicit and block-editor comments removed. Shortcodes (``[gallery]``, ``[caption]``…)
are kept as text and listed.

Dates are the GMT ones (a draft's ``0000-00-00`` means none). ``publish`` and ``future``
(scheduled) are published; ``draft``, ``pending`` and ``private`` become drafts. The first
category is the series (WordPress's "Uncategorized" is not one), further ones become tags.
The post's old link is kept as an old path, so it redirects to the note.

Images: a link to the old site's ``wp-content/uploads`` is looked up in the media folder
(beside the file unless told, holding ``wp-content/uploads/…``) and stored like an editor
upload; what is not there stays a remote link (and is listed).

XML is parsed with defusedxml: an export is untrusted input. An export declaring entities
(expansion bombs, ``SYSTEM`` references that would read local files: XXE) is refused with one
line in the report, as is any file that is not XML; never a traceback.
"""

import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

from defusedxml import DefusedXmlException, ElementTree
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from markdownify import markdownify

from blog.porting.formats import WORDPRESS
from blog.porting.markdown_import import guess_language, language_code, url_path
from blog.porting.records import NOTE, PAGE, NoteRecord
from blog.porting.report import SKIPPED, shorten
from blog.porting.wording import FAILED, error_text, not_imported, refusal, unexpected, worded
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
SHORTCODE = re.compile(r"\[(/?)([a-z_][\w-]*)\b[^\]\n]*\]")
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
    """The item's values by field, read where the WORDPRESS table of :mod:`.formats` says, as
    WordPress wrote them (the status, the featured image's attachment id, HTML): a list for
    series and tags, text for the rest, empty when the item has none. Were a field listed
    under several elements, the first one the item fills would win (as front-matter keys do).
    """
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
    """WordPress's paragraphs: blocks separated by blank lines, single newlines as <br>."""
    html = BLOCK_COMMENT.sub("", html.replace("\r\n", "\n"))
    blocks = [block.strip() for block in re.split(r"\n\s*\n", html) if block.strip()]
    return "\n".join(
        block if BLOCK_TAG.match(block) else "<p>" + block.replace("\n", "<br>\n") + "</p>"
        for block in blocks
    )


def _language_of_code(element):
    for name in element.get("class", []):
        if name.startswith("language-") or name.startswith("lang-"):
            return name.split("-", 1)[1]
    return ""


def to_markdown(html):
    markdown = markdownify(
        autop(html),
        heading_style="ATX",
        bullets="-",
        code_language_callback=lambda el: _language_of_code(el.find("code") or el),
        escape_underscores=False,
        escape_asterisks=False,
    )
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip()
    return markdown + "\n" if markdown else ""


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
            records.append(_record(fields, name, default_language, attachments, root, report))
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
    html = fields["body"]
    for match in SHORTCODE.finditer(html):
        if not match[1]:  # an opening or lone shortcode
            report.kept_shortcodes.append((name, None, match[0]))
    local = lambda m: m[1] if (root / m[1].lstrip("/")).is_file() else m[0]  # noqa: E731
    body = to_markdown(UPLOADS.sub(local, html))
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
    record.language = language_code(fields["language"]) or default_language
    record.language = record.language or guess_language(title, body)
    if (
        status in PUBLISHED
        and (link := fields["permalink"])
        and urlsplit(link).path not in ("", "/")
    ):
        record.old_paths = [url_path(link)]
    if thumbnail := attachments.get(fields["cover"]):
        record.cover = urlsplit(thumbnail).path
    return record


__all__ = ["read_export", "to_markdown", "Path"]
