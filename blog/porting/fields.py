"""A file's front matter → a record's fields, through the fields table of :mod:`.formats`.

Text and date fields are read by their kind; the others by the rules that tie them together
(tags in two languages, the first category as the series, the permalink as an old URL…).
"""

from django.utils.translation import gettext_lazy as _

from blog.porting import corrections, sync_state
from blog.porting.formats import DATE, FIELDS, NAMES, PATHS, TEXT
from blog.porting.limits import MAX_TAGS
from blog.porting.records import NOTE, PAGE
from blog.porting.values import (
    RecordError,
    as_bool,
    as_datetime,
    as_list,
    as_position,
    english_names,
    language_code,
    names,
    names_beside_tags,
    url_path,
)
from blog.porting.wording import worded
from blog.text.date_range import ORIGINAL

# The record's own text fields (the original author is one only beside a source URL).
RECORD_TEXT = tuple(f.name for f in FIELDS if f.value == TEXT and f.name != "author")
DATES = tuple(f.name for f in FIELDS if f.value == DATE)
LISTS = tuple(f.name for f in FIELDS if f.value in (NAMES, PATHS))


def fill(record, values, generator="", folder_categories=()):
    """Set ``record``'s fields from ``values``; :class:`.values.RecordError` at its line."""

    def get(name, default=None):
        return values[name][1] if name in values else default

    def line(name):
        return record.line_of(values[name][0]) if name in values else None

    for name in RECORD_TEXT:
        setattr(record, name, str(get(name) or "").strip())
    if "language" in values:
        record.language = language_code(get("language"))
        if not record.language:
            neither = _("language %(value)s is neither Chinese nor English")
            raise RecordError(worded(neither, value=repr(get("language"))), line("language"))
    for name in DATES:
        if get(name) not in (None, ""):
            try:
                setattr(record, name, as_datetime(get(name), values[name][0]))
            except RecordError as error:
                raise RecordError(error.args[0], line(name)) from None
    record.draft = as_bool(get("draft", False)) or not as_bool(get("published", True))
    record.kind = PAGE if str(get("kind", "")).lower() == "page" else NOTE
    for name in LISTS:
        if name in values:
            try:
                as_list(get(name), values[name][0])
            except RecordError as error:
                raise RecordError(error.args[0], line(name)) from None
    record.tags = names(get("tags"), generator=generator)
    record.tags += [t for t in names(get("tag"), generator="hexo") if t not in record.tags]
    record.tags_zh = names_beside_tags(get("tags_zh"), line("tags_zh"), record.tags)
    if get("tags_en") not in (None, ""):
        record.tags, record.tags_zh = english_names(
            get("tags_en"), line("tags_en"), record.tags, record.tags_zh
        )
    # Jekyll: the front matter's categories, then the folders' (jekyllrb.com, Posts).
    categories = names(get("series"), generator=generator)
    categories += [c for c in names(get("category"), generator="hexo") if c not in categories]
    categories += [c for c in folder_categories if c not in categories]
    if categories:
        record.series = categories[0]
        record.tags += [c for c in categories[1:] if c not in record.tags]
    for name in ("series_zh", "series_en"):
        value = get(name)
        if isinstance(value, (list, dict)):
            one_name = _("%(key)s: one name, not a list")
            raise RecordError(worded(one_name, key=values[name][0]), line(name))
        setattr(record, name, str(value or "").strip())
    if len(record.tags) > MAX_TAGS:
        raise RecordError(worded(_("more than %(count)d tags"), count=MAX_TAGS), line("tags"))
    if get("series_position") not in (None, ""):
        record.series_position = as_position(get("series_position"), line("series_position"))
    if get("author") and record.source_url and not record.source_author:
        record.source_author = str(get("author")).strip()
    if get("source_date") not in (None, ""):
        try:
            record.source_date = as_datetime(get("source_date"), "source_date", ORIGINAL).date()
        except RecordError as error:
            raise RecordError(error.args[0], line("source_date")) from None
    cover = get("cover")
    if isinstance(cover, dict):  # PaperMod and friends: cover: {image: …, alt: …}
        if not get("cover_alt"):
            record.cover_alt = str(cover.get("alt") or "").strip()
        cover = cover.get("image")
    record.cover = str(cover or "").strip()
    record.old_paths = [url_path(p) for p in as_list(get("old_paths"))]
    if "corrections" in values:
        record.corrections = corrections.read(get("corrections"), line("corrections"))
    if "synced_hashes" in values:
        try:
            record.synced_hashes = sync_state.read(get("synced_hashes"), values["synced_hashes"][0])
        except sync_state.SyncStateError as error:
            record.warnings.append((error.args[0], line("synced_hashes")))
    if permalink := get("permalink"):
        record.old_paths.insert(0, url_path(permalink))
        if not record.slug:
            record.slug = url_path(permalink).rstrip("/").rsplit("/", 1)[-1].split(".")[0]
