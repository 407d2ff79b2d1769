"""Read the demo files and load them idempotently: notes and pages with a strict front matter (one
known ``key: value`` a line; ``published: +30d`` schedules), then ``glossary.yaml`` before the
notes, everything upserted by slug and saved whole."""

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import reversion
import yaml
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from blog.models import (
    Correction,
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
from blog.models.revisions import latest_version, recording, register_models
from blog.models.taxonomy import set_tags
from blog.models.translations import save_note
from blog.ops.demo import site

DEMO_DIR = Path(__file__).resolve().parent
NOTE_KEYS = {
    "title", "slug", "language", "status", "published", "series", "position", "tags",
    "summary", "translation", "source_title", "source_author", "source_url", "source_date",
    "updated", "translator", "coauthors", "correction",
}  # fmt: skip
NOTE_REQUIRED = {"title", "slug", "language", "status"}
PAGE_KEYS = {"title", "slug", "language", "published"}
PAGE_REQUIRED = {"title", "slug", "language"}
TERM_KEYS = {
    "slug", "english", "chinese", "english_variants", "chinese_variants", "keep_in_english",
    "definition_en", "definition_zh", "explained_in",
}  # fmt: skip
LINE = re.compile(r"^([a-z_]+): ?(.*)$")
RELATIVE = re.compile(r"^\+(\d+)d$")


class DemoError(ValueError):
    """A demo file is malformed; the message names the file."""


@dataclass
class Document:
    name: str
    meta: dict
    body: str


def parse_document(text, name, allowed, required):
    """Split ``text`` into its front matter (a dict of strings) and its Markdown body."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[0] != "---":
        raise DemoError(f"{name}: must start with a '---' line")
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise DemoError(f"{name}: front matter has no closing '---' line") from None
    meta = {}
    for number, line in enumerate(lines[1:end], start=2):
        match = LINE.match(line)
        if not match:
            raise DemoError(f"{name}:{number}: expected 'key: value', got {line!r}")
        key, value = match[1], match[2].strip()
        if key not in allowed:
            raise DemoError(f"{name}:{number}: unknown key {key!r}")
        if key in meta:
            raise DemoError(f"{name}:{number}: repeated key {key!r}")
        meta[key] = value
    if missing := sorted(k for k in required if not meta.get(k)):
        raise DemoError(f"{name}: missing {', '.join(missing)}")
    if meta["language"] not in Language.values:
        raise DemoError(f"{name}: language must be one of {Language.values}")
    body = "\n".join(lines[end + 1 :]).strip("\n") + "\n"
    return Document(name, meta, body)


def parse_published(value, now, name):
    """``2025-05-18 21:40`` (local time) or ``+30d`` → an aware datetime; "" → None."""
    if not value:
        return None
    if match := RELATIVE.match(value):
        on_the_hour = now.replace(minute=0, second=0, microsecond=0)
        return on_the_hour + timedelta(days=int(match[1]), hours=1)
    try:
        naive = datetime.strptime(value, "%Y-%m-%d %H:%M")
    except ValueError:
        raise DemoError(f"{name}: published must be 'YYYY-MM-DD HH:MM' or '+Nd'") from None
    return naive.replace(tzinfo=ZoneInfo(settings.TIME_ZONE))


def read_documents(folder, allowed, required):
    paths = sorted((DEMO_DIR / folder).glob("*.md"))
    return [parse_document(p.read_text("utf-8"), p.name, allowed, required) for p in paths]


def upsert(model, lookup, values):
    """Like ``update_or_create``, but validates and saves the whole object, so what ``save()``
    derives is always written; notes go through ``save_note``."""
    obj = model.objects.filter(**lookup).first() or model(**lookup)
    for field, value in values.items():
        setattr(obj, field, value)
    obj.full_clean()
    if isinstance(obj, Note):
        save_note(obj)
    else:
        obj.save()
    return obj


def keep_dates(note, doc, now):
    """A demo note was last edited when its file says (``updated``), else when it was
    published: not on the day the demo was loaded, which every note would show as "Updated"."""
    edited = parse_published(doc.meta.get("updated", ""), now, doc.name) or note.published_at
    if edited is not None and edited <= now:
        Note.objects.filter(pk=note.pk).update(updated_at=edited)
        note.updated_at = edited


def keep_revision(note):
    """The demo's text as the note's revision, so its history and its translation's diff start
    there. A reload that changes nothing records nothing."""
    latest = latest_version(note)
    if latest is not None and latest.field_dict.get("body") == note.body:
        return
    register_models()
    with recording(comment="Demo content", manual=True):
        reversion.add_to_revision(note)


def note_values(doc, now, series, notes):
    meta, name = doc.meta, doc.name
    if meta["status"] not in Status.values:
        raise DemoError(f"{name}: status must be one of {Status.values}")
    published_at = parse_published(meta.get("published", ""), now, name)
    if meta["status"] == Status.PUBLISHED and published_at is None:
        raise DemoError(f"{name}: a published note needs a published date")
    if bool(meta.get("series")) != bool(meta.get("position")):
        raise DemoError(f"{name}: series and position go together")
    if meta.get("translation") and meta["translation"] not in notes:
        raise DemoError(f"{name}: translation {meta['translation']!r} is not loaded before it")
    source_date = meta.get("source_date")
    return {
        "title": meta["title"],
        "language": meta["language"],
        "status": meta["status"],
        "published_at": published_at,
        "body": doc.body,
        "summary": meta.get("summary", ""),
        "series": series[meta["series"]] if meta.get("series") else None,
        "series_position": int(meta["position"]) if meta.get("position") else None,
        "translation": notes[meta["translation"]] if meta.get("translation") else None,
        "source_title": meta.get("source_title", ""),
        "source_author": meta.get("source_author", ""),
        "source_url": meta.get("source_url", ""),
        "source_date": date.fromisoformat(source_date) if source_date else None,
        "translator": meta.get("translator", ""),
        "coauthors": meta.get("coauthors", ""),
    }


def keep_correction(note, doc, now):
    """``correction: 2025-06-02 09:15 修正：…``: a correction readers see, made on that day (as an
    imported one, with no revision). A reload keeps one, and any the author made since."""
    value = doc.meta.get("correction", "")
    if not value:
        return
    when, _space, text = value.partition(" ")
    day, _space, text = text.partition(" ")
    made_at = parse_published(f"{when} {day}", now, doc.name)
    if made_at is None or made_at > now or not text.strip():
        raise DemoError(f"{doc.name}: correction must be 'YYYY-MM-DD HH:MM text', in the past")
    Correction.objects.update_or_create(
        note=note, text=text.strip(), revision=None, defaults={"made_at": made_at}
    )


def load_page(doc):
    published = doc.meta.get("published", "yes")
    if published not in ("yes", "no"):
        raise DemoError(f"{doc.name}: a page's published is 'yes' or 'no'")
    values = {"title": doc.meta["title"], "language": doc.meta["language"], "body": doc.body}
    return upsert(Page, {"slug": doc.meta["slug"]}, {**values, "is_published": published == "yes"})


def read_glossary(path=None):
    """The demo's glossary file → one dict per term, checked strictly."""
    path = path or DEMO_DIR / "glossary.yaml"
    data = yaml.safe_load(path.read_text("utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
        raise DemoError(f"{path.name}: must hold 'terms:', a list of terms")
    entries = data["terms"]
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not entry.get("slug"):
            raise DemoError(f"{path.name}: term {number} is not a mapping with a slug")
        if unknown := sorted(set(entry) - TERM_KEYS):
            raise DemoError(f"{path.name}: term {entry['slug']}: unknown keys {unknown}")
        if not (entry.get("english") or entry.get("chinese")):
            raise DemoError(f"{path.name}: term {entry['slug']}: no English or Chinese form")
    slugs = [entry["slug"] for entry in entries]
    if len(set(slugs)) != len(slugs):
        raise DemoError(f"{path.name}: a slug is used twice")
    return entries


def load_term(entry):
    """A term without the notes that explain it (they are linked once the notes are loaded)."""
    values = {
        field: entry.get(field, "")
        for field in ("english", "chinese", "definition_en", "definition_zh")
    }
    for field in ("english_variants", "chinese_variants"):
        values[field] = "\n".join(entry.get(field, []))
    values["keep_in_english"] = entry.get("keep_in_english", False)
    return upsert(Term, {"slug": entry["slug"]}, values)


def link_explaining_notes(term, entry, notes):
    if unknown := [slug for slug in entry.get("explained_in", []) if slug not in notes]:
        raise DemoError(f"glossary.yaml: term {term.slug}: explained_in names no note {unknown}")
    term.explained_in.set([notes[slug] for slug in entry.get("explained_in", [])])


def database_is_empty():
    """No notes, pages or series: nothing an author could have written yet."""
    return not (Note.objects.exists() or Page.objects.exists() or Series.objects.exists())


@transaction.atomic
def load_demo(now=None):
    """Load (or reload) the whole demo; return the loaded objects' counts by kind."""
    now = now or timezone.now()
    series = {s["slug"]: upsert(Series, {"slug": s["slug"]}, s) for s in site.SERIES}
    tags = {
        slug: upsert(Tag, {"slug": slug}, {"name": name, "name_zh": name_zh})
        for slug, name, name_zh in site.TAGS
    }
    glossary = read_glossary()
    terms = {entry["slug"]: load_term(entry) for entry in glossary}
    docs = read_documents("notes", NOTE_KEYS, NOTE_REQUIRED)
    # A note that names its translation is loaded after that translation.
    docs.sort(key=lambda d: bool(d.meta.get("translation")))
    notes = {}
    for doc in docs:
        slug = doc.meta["slug"]
        if slug in notes:
            raise DemoError(f"{doc.name}: slug {slug!r} is used twice")
        tag_slugs = [t.strip() for t in doc.meta.get("tags", "").split(",") if t.strip()]
        if unknown := [t for t in tag_slugs if t not in tags]:
            raise DemoError(f"{doc.name}: unknown tags {unknown}")
        note_tags = [tags[t] for t in tag_slugs]
        notes[slug] = upsert(Note, {"slug": slug}, note_values(doc, now, series, notes))
        keep_dates(notes[slug], doc, now)
        keep_correction(notes[slug], doc, now)
        set_tags(notes[slug], note_tags)
        keep_revision(notes[slug])
    for entry in glossary:
        link_explaining_notes(terms[entry["slug"]], entry, notes)
    pages = [load_page(doc) for doc in read_documents("pages", PAGE_KEYS, PAGE_REQUIRED)]
    settings_row = upsert(SiteSettings, {"pk": 1}, site.SITE)
    links = [
        upsert(NavigationLink, {"site": settings_row, "url": url}, {
            "position": position, "label_zh": label_zh, "label_en": label_en,
        })
        for position, label_zh, label_en, url in site.NAVIGATION
    ]  # fmt: skip
    published = Note.objects.filter(pk__in=[n.pk for n in notes.values()]).published()
    return {
        "notes": len(notes),
        "published": published.count(),
        "drafts": sum(n.status == Status.DRAFT for n in notes.values()),
        "scheduled": sum(n.is_scheduled for n in notes.values()),
        "tags": len(tags),
        "series": len(series),
        "pages": len(pages),
        "links": len(links),
        "terms": len(terms),
    }
