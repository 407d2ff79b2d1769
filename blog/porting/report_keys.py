"""How each front-matter key of an imported file was read, for the admin's import report.

Per file, what biji made of each key and what came from elsewhere (a date from a file name, a
guessed language), read again after the import through the same table (:mod:`.formats`) and
value readers (:mod:`.values`); each line is worded when the report is.
"""

import logging
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from blog.models import Language, Note, Page, Status
from blog.porting import frontmatter, sync_state
from blog.porting.formats import AUTO, FORMATS
from blog.porting.limits import MAX_MARKDOWN_BYTES
from blog.porting.markdown_import import (
    JEKYLL_NAME,
    LANG_SUFFIX,
    MARKDOWN_SUFFIXES,
    SiteLayout,
    folder_categories,
)
from blog.porting.report import CREATED, UNCHANGED, UPDATED, shorten
from blog.porting.values import (
    SPLIT_AT,
    as_bool,
    as_datetime,
    as_list,
    guess_language,
    language_code,
    names,
    url_path,
)
from blog.text.date_range import ORIGINAL

READ, IGNORED, SHADOWED, OWN_AUTHOR, FILE_NAME, GUESSED, SITE_CONFIG, FOLDERS = (
    "read", "ignored", "shadowed", "own author", "file name", "guessed", "site config",
    "folders",
)  # fmt: skip
EXPLAINED = {CREATED, UPDATED, UNCHANGED}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeyReading:
    """One line: what ``key`` (or, for ``FILE_NAME`` and ``GUESSED``, the file) gave the field
    ``field_name``; ``facts`` hold the value language-free, worded by ``str()``."""

    how: str
    key: str = ""
    field_name: str = ""
    facts: dict = field(default_factory=dict)
    other: str = ""  # SHADOWED: the earlier key that gave the field

    def __str__(self):
        if self.how == IGNORED:
            return _("“%(key)s”: not read (not a key biji reads)") % {"key": self.key}
        if self.how == OWN_AUTHOR:
            return _(
                "“%(key)s”: not read (an author is read as the original author only beside a "
                "source URL)"
            ) % {"key": self.key}
        label = field_label(self.field_name)
        if self.how == SHADOWED:
            return _("“%(key)s”: not read (the %(field)s comes from “%(other)s”)") % {
                "key": self.key,
                "field": label,
                "other": self.other,
            }
        words = {"field": label, "value": value_text(self.field_name, self.facts), "key": self.key}
        if self.how == FILE_NAME:
            return _("%(field)s: %(value)s (from the file name)") % words
        if self.how == GUESSED:
            return _("%(field)s: %(value)s (guessed from the title and text)") % words
        if self.how == SITE_CONFIG:
            return _("%(field)s: %(value)s (from the Hugo site's languages)") % words
        if self.how == FOLDERS:
            return _("%(field)s: %(value)s (from the folders above _posts)") % words
        return _("%(field)s: %(value)s (from “%(key)s”)") % words


def field_label(name):
    """The field's name as the note form labels it (those are translated already)."""
    model_field = {
        "draft": "status",
        "published": "status",
        "translation_key": "translation",
        "author": "source_author",
        "category": "series",
        "tag": "tags",
    }.get(name, name)
    labels = {
        "kind": _("page or note"),
        "tags_zh": _("Chinese tag names"),
        "tags_en": _("English tag names"),
        "old_paths": _("old addresses"),
        "permalink": _("old address"),
        "synced_hashes": _("translation sync state"),
        "series_zh": _("Chinese series title"),
        "series_en": _("English series title"),
    }
    if name in labels:
        return labels[name]
    return str(Note._meta.get_field(model_field).verbose_name)


def value_text(name, facts):
    """The value read, in words."""
    if name == "synced_hashes":
        return sync_text(facts)
    if facts.get("empty"):
        return _("empty")
    if "language" in facts:
        return str(Language(facts["language"]).label)
    if "status" in facts:
        return str(Status(facts["status"]).label)
    if "kind" in facts:
        return str((Page if facts["kind"] == "page" else Note)._meta.verbose_name)
    if "date" in facts:
        if facts.get("zone"):
            return _("%(date)s, no time zone given: read in %(zone)s") % facts
        return facts["date"]
    if "names" in facts:
        return names_text(name, facts)
    if "count" in facts:
        return count_text(f"{name}_by_tag" if facts.get("by_tag") else name, facts["count"])
    return facts.get("text", "")


def names_text(name, facts):
    names, count = ", ".join(facts["names"]), len(facts["names"])
    if name == "series":
        if not facts.get("more"):
            return f"“{names}”"
        return ngettext(
            "“%(series)s”; %(count)d more category became a tag",
            "“%(series)s”; %(count)d more categories became tags",
            facts["more"],
        ) % {"series": names, "count": facts["more"]}
    form = {
        "list": _("a list"),
        "text": _("comma-separated text"),
        "spaced": _("space-separated text"),
    }.get(facts.get("form"), _("one name"))
    return ngettext(
        "%(count)d tag (%(form)s): %(names)s", "%(count)d tags (%(form)s): %(names)s", count
    ) % {"count": count, "form": form, "names": names}


def sync_text(facts):
    if "count" not in facts:
        return _("not block hashes: ignored")
    if not facts["count"]:
        return _("never compared with its translation (never behind)")
    return ngettext(
        "the hash of its translation's %(count)d block when last brought in line",
        "the hashes of its translation's %(count)d blocks when last brought in line",
        facts["count"],
    ) % {"count": facts["count"]}


def count_text(name, count):
    if name == "summary":
        return ngettext("%(count)d character", "%(count)d characters", count) % {"count": count}
    if name == "tags_zh":
        return ngettext(
            "%(count)d name, in the order of the tags",
            "%(count)d names, in the order of the tags",
            count,
        ) % {"count": count}
    if name == "tags_zh_by_tag":
        return ngettext("%(count)d tag's Chinese name", "%(count)d tags' Chinese names", count) % {
            "count": count
        }
    if name == "tags_en_by_tag":
        return ngettext("%(count)d tag's English name", "%(count)d tags' English names", count) % {
            "count": count
        }
    return ngettext(
        "%(count)d address, redirected to the note",
        "%(count)d addresses, redirected to the note",
        count,
    ) % {"count": count}


# --- reading the files again ---------------------------------------------------------------


def explain_front_matter(report, root, fmt_name="auto"):
    """Add to ``report`` how the front matter of each file it imported was read."""
    root = Path(root)
    fmt = FORMATS.get(fmt_name, AUTO)
    layout = SiteLayout(root, fmt_name)
    sources = dict.fromkeys(o.source for o in report.outcomes if o.action in EXPLAINED)
    for source in sources:
        path = root / source
        if path.suffix.lower() not in MARKDOWN_SUFFIXES or not path.is_file():
            continue  # biji's data file, or not a Markdown file of this folder
        try:
            readings = read_keys(path, fmt, layout, root)
        except Exception:
            # It was read once already by the import: failing now is a bug, not the file's.
            logger.exception("Import report: reading the front matter of %s again failed", path)
            continue
        if readings:
            report.readings[source] = readings


def read_keys(path, fmt, layout=None, root=None):
    """The :class:`KeyReading` lines of one file, in the order of its keys, then what came
    from the file's name, its folders, the site's configuration or its text."""
    root = Path(root) if root is not None else path.parent
    rel = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
    layout = layout or SiteLayout(root)
    generator = layout.generator_of(rel.as_posix())
    if path.stat().st_size > MAX_MARKDOWN_BYTES:
        return []
    document = frontmatter.split(path.read_text("utf-8"))
    if not document.syntax:
        return []
    meta, given, readings = document.meta, {}, []
    for key, value in meta.items():
        name = fmt.field_for(key)
        if name is None:
            readings.append(KeyReading(IGNORED, key))
        elif name in given:
            readings.append(KeyReading(SHADOWED, key, name, other=given[name]))
        elif name == "author" and not any(meta.get(k) for k, n in fmt.keys if n == "source_url"):
            readings.append(KeyReading(OWN_AUTHOR, key))
        else:
            given[name] = key
            facts = read_value(name, key, value, generator)
            readings.append(KeyReading(READ, key, name, facts))
    readings += from_elsewhere(path, given, meta, document.body, fmt, layout, rel, generator)
    return readings


def read_value(name, key, value, generator=""):
    """What biji reads from ``value`` under field ``name``, as the import reads it (text by the
    rules of the ``generator`` that wrote the file: :func:`.values.names`)."""
    if name == "synced_hashes":
        try:
            return {"count": len(sync_state.read(value, key).split())}
        except sync_state.SyncStateError:
            return {}
    if value is None or value == "":
        return {"empty": True}
    if name in ("published_at", "updated_at"):
        return date_facts(as_datetime(value, key), value)
    if name == "source_date":
        return {"date": as_datetime(value, key, ORIGINAL).date().isoformat()}
    if name == "language":
        return {"language": language_code(value)}
    if name in ("draft", "published"):
        draft = as_bool(value) if name == "draft" else not as_bool(value)
        return {"status": Status.DRAFT if draft else Status.PUBLISHED}
    if name == "kind":
        return {"kind": "page" if str(value).lower() == "page" else "note"}
    if name in ("tags", "tag"):
        read = names(value, key, generator if name == "tags" else "hexo")
        form = (
            "list" if isinstance(value, list) else
            "one" if len(read) < 2 else
            "spaced" if SPLIT_AT.get(generator) == "space" and "," not in value else "text"
        )  # fmt: skip
        return {"names": [shorten(n, 40) for n in read], "form": form}
    if name in ("series", "category"):
        categories = names(value, key, generator if name == "series" else "hexo")
        return {
            "names": [shorten(categories[0])] if categories else [],
            "more": len(categories) - 1,
        }
    if name == "tags_en" and isinstance(value, dict):
        return {"count": len(value), "by_tag": True}
    if name == "tags_zh":
        if isinstance(value, dict):
            return {"count": len(value), "by_tag": True}
        return {"count": len(value) if isinstance(value, list) else len(as_list(value, key))}
    if name == "old_paths":
        return {"count": len(as_list(value, key))}
    if name == "summary":
        return {"count": len(str(value or "").strip())}
    if name == "permalink":
        return {"text": shorten(url_path(value))}
    if name == "cover" and isinstance(value, dict):
        value = value.get("image") or ""
    if name == "title":
        return {"text": f"“{shorten(str(value).strip())}”"}
    return {"text": shorten(str(value).strip())}


def date_facts(moment, written):
    """A date as read, and the time zone it was read in when the file gave none."""
    given_zone = isinstance(written, datetime) and written.tzinfo is not None
    if isinstance(written, str):
        try:
            normalised = written.strip().replace("/", "-")  # as the import reads it
            given_zone = datetime.fromisoformat(normalised).tzinfo is not None
        except ValueError:
            given_zone = False
    elif isinstance(written, date) and not isinstance(written, datetime):
        given_zone = False
    text = moment.isoformat(sep=" ", timespec="minutes")
    return {"date": text} if given_zone else {"date": text, "zone": settings.TIME_ZONE}


def from_elsewhere(path, given, meta, body, fmt, layout=None, rel=None, generator=""):
    """A date, Jekyll's categories and a language from the file's name, folders, Hugo site or
    text, as the import takes them when no key gives them."""
    readings, stem = [], path.stem
    if generator == "jekyll" and rel is not None and (folders := folder_categories(rel)):
        readings.append(
            KeyReading(FOLDERS, field_name="series", facts={"names": folders[:1], "more": 0})
        )
    suffix = LANG_SUFFIX.match(stem)
    if suffix:
        stem = suffix["stem"]
    if stem.lower() == "index" and path.parent.name:
        stem = path.parent.name
    jekyll = JEKYLL_NAME.match(stem)
    if "published_at" not in given and jekyll:
        day = date(int(jekyll[1]), int(jekyll[2]), int(jekyll[3]))
        readings.append(
            KeyReading(
                FILE_NAME, field_name="published_at", facts=date_facts(as_datetime(day, ""), day)
            )
        )
    if "language" not in given:
        configured = (
            language_code(layout.hugo.language_of(rel.as_posix()))
            if generator == "hugo" and layout is not None and rel is not None
            else ""
        )
        if suffix:
            code = language_code(suffix["lang"])
            readings.append(KeyReading(FILE_NAME, field_name="language", facts={"language": code}))
        elif configured:
            facts = {"language": configured}
            readings.append(KeyReading(SITE_CONFIG, field_name="language", facts=facts))
        else:
            title = str(meta.get(fmt.key_for("title") or "title") or "")
            code = guess_language(title, body)
            readings.append(KeyReading(GUESSED, field_name="language", facts={"language": code}))
    return readings
