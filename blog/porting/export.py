"""Export: one Markdown file per note and page, biji's data file, and the media beside them.

Deterministic, so that export → import into an empty database → export gives the same bytes:
notes in slug order, keys in the fields table's order (:mod:`.formats`), empty values left
out, times in ``TIME_ZONE`` with their offset. A manifest (:data:`MANIFEST`) lets the next
export into the folder remove what no longer exists. Layout and keys: docs/moving.md.
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
from blog.porting import corrections, frontmatter, glossary_file, sync_state
from blog.porting.formats import FIELDS, HUGO, TEXT
from blog.porting.media import media_prefix
from blog.porting.records import NOTE, PAGE
from blog.porting.site_config import address, config_files

MEDIA_REF = r"(?<![\w/])%s([^\s)\"'<>]+)"
# A translated note's empty sync state is "never compared", not "not said" (.sync_state).
SAID_WHEN_EMPTY = {"synced_hashes"}
# What Liquid (Jekyll) and Nunjucks (Hexo) would take for their own in a body.
TEMPLATE_DELIMITERS = ("{{", "{%", "{#")
# The table's text fields that are the note's own, written stripped as import strips them.
NOTE_TEXT = tuple(
    field
    for field in FIELDS
    if field.value == TEXT and field.name not in ("slug", "translation_key", "author")
)


def stamp(value):
    return timezone.localtime(value).replace(microsecond=0) if value else None


def translation_key(note):
    """The key a translated pair shares: the one it was imported with while both notes keep
    it (``Note.translation_key``), else the Chinese note's slug; "" for a note alone."""
    counterpart = note.counterpart
    if counterpart is None:
        return ""
    if note.translation_key and note.translation_key == counterpart.translation_key:
        return note.translation_key
    pair = sorted([note, counterpart], key=lambda n: (n.language != Language.CHINESE, n.slug))
    return pair[0].slug


def series_names(note):
    """``categories`` names the series in the note's language, as each language's file of a
    Hugo multilingual site does; ``series_zh``/``series_en`` give its other title."""
    if note.series is None:
        return {"series": []}
    own, other, other_field = (
        (note.series.title_en, note.series.title_zh, "series_zh")
        if note.language == Language.ENGLISH
        else (note.series.title_zh, note.series.title_en, "series_en")
    )
    return {"series": [own], other_field: other if other != own else ""}


def tag_names(note):
    """``tags`` named in the note's language (else the other), and for biji each tag's other
    name beside them: ``tags_zh`` in an English note, ``tags_en`` in a Chinese one."""
    chinese = note.language == Language.CHINESE

    def own(tag):
        return (tag.name_zh or tag.name) if chinese else (tag.name or tag.name_zh)

    tags = sorted(note.tags.all(), key=lambda tag: (own(tag).lower(), tag.slug))
    both = [tag for tag in tags if tag.name and tag.name_zh]
    return {
        "tags": [own(tag) for tag in tags],
        "tags_en" if chinese else "tags_zh": {
            own(tag): tag.name if chinese else tag.name_zh for tag in both
        },
    }


def permalink(note, fmt):
    """The address a generator that reads ``permalink`` serves the note at: its own in biji,
    or for jekyll-polyglot a pair's one address (the Chinese note's; ``/en/`` for English)."""
    if fmt.permalinks == "all":
        return address(NOTE, note.slug, note.language)
    if fmt.permalinks == "pair" and (key := translation_key(note)):
        return address(NOTE, key, Language.CHINESE)
    return ""


def note_fields(note, fmt=HUGO):
    """The note's value of each field of :mod:`.formats`' table, as import will read it back."""
    return {
        **{field.name: getattr(note, field.name).strip() for field in NOTE_TEXT},
        "slug": note.slug,
        "permalink": permalink(note, fmt),
        "language": note.language,
        "published_at": stamp(note.published_at),
        "updated_at": stamp(note.updated_at),
        "draft": note.status == Status.DRAFT,
        "translation_key": translation_key(note),
        **tag_names(note),
        **series_names(note),
        "series_position": note.series_position if note.series else None,
        "cover": f"{media_prefix()}{note.cover.name}" if note.cover else "",
        "source_date": note.source_date,
        # .all(): the prefetched paths when the caller read them (export, the Markdown sources).
        "old_paths": sorted(old.path for old in note.legacy_paths.all()),
        "corrections": corrections.exported(note),
        "synced_hashes": sync_state.exported(note, note.counterpart),
    }


def page_fields(page, fmt=HUGO):
    return {
        "title": page.title.strip(),
        "slug": page.slug,
        "permalink": address(PAGE, page.slug, page.language) if fmt.permalinks == "all" else "",
        "language": page.language,
        "updated_at": stamp(page.updated_at),
        "draft": not page.is_published,
        "kind": "page",
        "old_paths": sorted(page.legacy_paths.values_list("path", flat=True)),
    }


def front_matter(fields, fmt, body=""):
    """``fields`` under the format's keys, in its order, empty ones left out but for
    :data:`SAID_WHEN_EMPTY`; a body the generator's templates would read gets the switch off."""
    fields = dict(fields)
    if "draft" in fields and fmt.key_for("published"):  # Hexo, Jekyll: published: false
        fields["published"] = not fields.pop("draft")
    meta = {}
    for key, field in fmt.written:
        value = fields.get(field)
        empty = value is None if field in SAID_WHEN_EMPTY else value in (None, "", [], {})
        if not empty:
            meta[key] = value
    if fmt.template_switch and any(mark in body for mark in TEMPLATE_DELIMITERS):
        synced = meta.pop("translation_synced", None)
        switch, value = fmt.template_switch
        meta[switch] = value
        if synced is not None:
            meta["translation_synced"] = synced
    return meta


def file_name(slug, language, fmt):
    """Hugo's language suffix (``warp.en.md``); the default language has none."""
    if fmt.language_suffix and language != Language.CHINESE:
        return f"{slug}.{language}.md"
    return f"{slug}.md"


def note_path(note, fmt):
    if fmt.dated_filenames:
        if note.published_at is None:
            return f"_drafts/{note.slug}.md"
        return f"{fmt.notes_dir}/{timezone.localtime(note.published_at):%Y-%m-%d}-{note.slug}.md"
    name = note.slug
    counterpart = note.counterpart
    if fmt.language_suffix and counterpart is not None and counterpart.language != note.language:
        # A pair's files share a name, as Hugo pairs translations by path too.
        name = counterpart.slug if note.language != Language.CHINESE else note.slug
    return f"{fmt.notes_dir}/{file_name(name, note.language, fmt)}"


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


# The files the last export wrote, one per line: what the next export into the same folder
# removes when it no longer writes them (a deleted note's file, an unused image). Generators
# skip files whose names begin with a dot.
MANIFEST = ".biji-export"


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def previous_export(root):
    """The files an earlier export wrote into ``root`` (its manifest), or None if none did."""
    manifest = Path(root) / MANIFEST
    if not manifest.is_file():
        return None
    return [line for line in manifest.read_text("utf-8").splitlines() if line.strip()]


def _remove_stale(root, stale):
    """Remove ``stale`` (paths in ``root`` from its manifest) and the folders they leave empty."""
    removed = []
    resolved_root = root.resolve()
    for rel in stale:
        path = (root / rel).resolve()
        if not path.is_relative_to(resolved_root) or not path.is_file():
            continue
        path.unlink()
        removed.append(rel)
        parent = path.parent
        while parent != resolved_root and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    return removed


def export(destination, fmt=HUGO):
    """Write everything to ``destination``: the files written by kind, ``removed`` (an earlier
    export's, of what no longer exists) and, with no manifest there, ``left`` (Markdown files)."""
    root = Path(destination)
    before = previous_export(root)
    written = []

    def write(rel, text):
        _write(root / rel, text)
        written.append(str(rel))

    media = set()
    reference = re.compile(MEDIA_REF % re.escape(media_prefix()))
    # In chunks, without what rendering derives: every note at once, whole, held ~80 KB a
    # note (840 MB at 10,000 notes, `make bench-scale`).
    derived = Note.derived_fields
    notes = (
        Note.objects.select_related("series", "translation")
        .prefetch_related("tags", "legacy_paths", "corrections")
        .defer(*derived, *(f"translation__{name}" for name in derived))
    )
    exported = 0
    for note in notes.order_by("slug").iterator(chunk_size=500):
        exported += 1
        meta = front_matter(note_fields(note, fmt), fmt, note.body)
        write(note_path(note, fmt), frontmatter.join(meta, note.body))
        media.update(reference.findall(note.body))
        if note.cover:
            media.add(note.cover.name)
    pages = Page.objects.prefetch_related("legacy_paths").order_by("slug")
    for page in pages:
        meta = front_matter(page_fields(page, fmt), fmt, page.body)
        path = f"{fmt.pages_dir}/{file_name(page.slug, page.language, fmt)}"
        write(path, frontmatter.join(meta, page.body))
        media.update(reference.findall(page.body))
    data = site_data()
    write(fmt.data_file, frontmatter.dump_yaml(data))
    own_config = []
    for rel, text in config_files(fmt, data["site"]["title"]).items():
        if (root / rel).exists() and rel not in (before or ()):
            own_config.append(rel)  # the site's own configuration: never overwritten
        else:
            write(rel, text)
    for text in [data["site"]["footer"], *(s["description"] for s in data["series"])]:
        media.update(reference.findall(text))
    glossary = glossary_file.dump()
    if glossary is not None:
        write(glossary_file.glossary_path(fmt), glossary)
        media.update(reference.findall(glossary))
    copied = 0
    for name in sorted(media):
        if ".." in Path(name).parts or not default_storage.exists(name):
            continue
        with default_storage.open(name, "rb") as source:
            target = root / fmt.media_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
        written.append(f"{fmt.media_dir}/{name}")
        copied += 1
    kept = set(written)
    removed = _remove_stale(root, sorted(set(before or ()) - kept))
    left = []
    if before is None:
        left = sorted(
            rel
            for path in root.rglob("*")
            if path.suffix.lower() in (".md", ".markdown")
            and (rel := path.relative_to(root).as_posix()) not in kept
        )
    _write(root / MANIFEST, "".join(f"{rel}\n" for rel in sorted(kept)))
    terms = Term.objects.count() if glossary is not None else 0
    return {
        "notes": exported,
        "pages": len(pages),
        "terms": terms,
        "media": copied,
        "removed": removed,
        "left": left,
        "own_config": own_config,
    }
