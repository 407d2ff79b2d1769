"""Export: one Markdown file per note and page, biji's data file, and the media beside them.

Deterministic, so that export → import into an empty database → export gives the same
bytes: notes in slug order, keys in the format table's order (:mod:`.formats`), empty values
left out, tags sorted by name, times in ``TIME_ZONE`` to the second with their offset, text
stripped of surrounding whitespace as import strips it, ``\\n`` line endings.

Layout (per format): notes in ``notes_dir`` (Jekyll: ``_posts/YYYY-MM-DD-slug.md``, a draft
without a date in ``_drafts/``), pages in ``pages_dir``, site settings, navigation, series and
tags (both names and slug) in ``data_file``, and every file a body or cover refers to as
``/media/<name>`` copied to ``media_dir/<name>``, where the static site serves it at the same
URL. The glossary is one file beside the data file (:mod:`.glossary_file`), written when there
are terms. A translated pair shares a key: the Chinese note's slug; each of its notes also
carries its sync state, so that a note behind its translation is behind after the round trip
(:mod:`.sync_state`).
"""

import re
from pathlib import Path

from django.core.files.storage import default_storage
from django.utils import timezone

from blog.models import (
    Language,
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Status,
    Tag,
    Term,
)
from blog.porting import frontmatter, glossary_file, sync_state
from blog.porting.formats import HUGO
from blog.porting.media import media_prefix

MEDIA_REF = r"(?<![\w/])%s([^\s)\"'<>]+)"
# A translated note's empty sync state is "never compared", not "not said" (.sync_state).
SAID_WHEN_EMPTY = {"synced_hashes"}


def stamp(value):
    return timezone.localtime(value).replace(microsecond=0) if value else None


def translation_key(note):
    counterpart = note.counterpart
    if counterpart is None:
        return ""
    pair = sorted([note, counterpart], key=lambda n: (n.language != Language.CHINESE, n.slug))
    return pair[0].slug


def note_fields(note):
    # A tag typed in Chinese may have no English name yet: its Chinese name stands in.
    tags = sorted(note.tags.all(), key=lambda tag: ((tag.name or tag.name_zh).lower(), tag.slug))
    return {
        "title": note.title.strip(),
        "slug": note.slug,
        "language": note.language,
        "published_at": stamp(note.published_at),
        "updated_at": stamp(note.updated_at),
        "draft": note.status == Status.DRAFT,
        "translation_key": translation_key(note),
        "summary": note.summary.strip(),
        "tags": [tag.name or tag.name_zh for tag in tags],
        "tags_zh": [tag.name_zh for tag in tags] if any(t.name_zh for t in tags) else [],
        "series": [note.series.title_en] if note.series else [],
        "series_position": note.series_position if note.series else None,
        "cover": f"{media_prefix()}{note.cover.name}" if note.cover else "",
        "cover_alt": note.cover_alt.strip(),
        "source_title": note.source_title.strip(),
        "source_author": note.source_author.strip(),
        "source_url": note.source_url.strip(),
        "source_date": note.source_date,
        "old_paths": sorted(note.legacy_paths.values_list("path", flat=True)),
        "synced_hashes": sync_state.exported(note, note.counterpart),
    }


def page_fields(page):
    return {
        "title": page.title.strip(),
        "slug": page.slug,
        "language": page.language,
        "updated_at": stamp(page.updated_at),
        "draft": not page.is_published,
        "kind": "page",
        "old_paths": sorted(page.legacy_paths.values_list("path", flat=True)),
    }


def front_matter(fields, fmt):
    """``fields`` under the format's keys, in its order; empty values left out, but for those
    whose empty value says something (:data:`SAID_WHEN_EMPTY`)."""
    fields = dict(fields)
    if "draft" in fields and fmt.key_for("published"):  # Hexo, Jekyll: published: false
        fields["published"] = not fields.pop("draft")
    meta = {}
    for key, field in fmt.keys:
        value = fields.get(field)
        empty = value is None if field in SAID_WHEN_EMPTY else value in (None, "", [])
        if fmt.key_for(field) == key and not empty:
            meta[key] = value
    return meta


def note_path(note, fmt):
    if fmt.dated_filenames:
        if note.published_at is None:
            return f"_drafts/{note.slug}.md"
        return f"{fmt.notes_dir}/{timezone.localtime(note.published_at):%Y-%m-%d}-{note.slug}.md"
    return f"{fmt.notes_dir}/{note.slug}.md"


def site_data():
    site = SiteSettings.objects.filter(pk=1).first() or SiteSettings(pk=1)
    return {
        "site": {
            field: getattr(site, field)
            for field in ("title", "tagline_zh", "tagline_en", "author", "description", "footer")
        },
        "navigation": [
            {
                "position": link.position,
                "label_zh": link.label_zh,
                "label_en": link.label_en,
                "url": link.url,
            }  # fmt: skip
            for link in NavigationLink.objects.filter(site_id=1).order_by("position", "url")
        ],
        "series": [
            {
                "slug": s.slug,
                "title_zh": s.title_zh,
                "title_en": s.title_en,
                "description": s.description,
            }  # fmt: skip
            for s in Series.objects.order_by("slug")
        ],
        "tags": [
            {"slug": t.slug, "name": t.name, "name_zh": t.name_zh}
            for t in Tag.objects.order_by("slug")
        ],
    }


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def export(destination, fmt=HUGO):
    """Write everything to ``destination``; return the number of files written by kind."""
    root = Path(destination)
    media = set()
    reference = re.compile(MEDIA_REF % re.escape(media_prefix()))
    notes = Note.objects.select_related("series", "translation").prefetch_related(
        "tags", "legacy_paths"
    )
    for note in notes.order_by("slug"):
        fields = note_fields(note)
        _write(root / note_path(note, fmt), frontmatter.join(front_matter(fields, fmt), note.body))
        media.update(reference.findall(note.body))
        if note.cover:
            media.add(note.cover.name)
    pages = Page.objects.prefetch_related("legacy_paths").order_by("slug")
    for page in pages:
        meta = front_matter(page_fields(page), fmt)
        _write(root / fmt.pages_dir / f"{page.slug}.md", frontmatter.join(meta, page.body))
        media.update(reference.findall(page.body))
    data = site_data()
    _write(root / fmt.data_file, frontmatter.dump_yaml(data))
    for text in [data["site"]["footer"], *(s["description"] for s in data["series"])]:
        media.update(reference.findall(text))
    glossary = glossary_file.dump()
    if glossary is not None:
        _write(root / glossary_file.glossary_path(fmt), glossary)
        media.update(reference.findall(glossary))
    copied = 0
    for name in sorted(media):
        if ".." in Path(name).parts or not default_storage.exists(name):
            continue
        with default_storage.open(name, "rb") as source:
            target = root / fmt.media_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
        copied += 1
    terms = Term.objects.count() if glossary is not None else 0
    return {"notes": len(notes), "pages": len(pages), "terms": terms, "media": copied}
