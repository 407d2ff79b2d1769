"""Markdown folders from Hugo, Hexo and Jekyll → :class:`.records.NoteRecord`.

What is read from where, beyond the front-matter tables of :mod:`.formats`:

* the slug: front matter ``slug``, else the old permalink's last segment, else the file name
  (Jekyll's ``YYYY-MM-DD-`` prefix, a language suffix such as ``.en`` and, for a Hugo page
  bundle's ``index.md``, the folder name instead), made ASCII (Chinese → pinyin);
* the date: front matter, else Jekyll's file name; a time without offset is in ``TIME_ZONE``;
* which generator wrote the file (:func:`generator_of`), when the import is not told: Hexo's
  ``source/``, Jekyll's ``_posts``/``_drafts``, Hugo's ``content/`` or configuration; its own
  rules then apply to names given as text (:func:`names`) and, for Jekyll, the folders above
  ``_posts`` are categories (``gpu/_posts/…``: the series ``gpu`` unless the front matter names
  one first);
* the language: front matter, else a ``.zh``/``.en`` file-name suffix, else (Hugo) the
  language whose ``contentDir`` holds the file or ``defaultContentLanguage``
  (:mod:`.hugo_site`), else the title's (and body's) script;
* translations: a shared ``translationKey``; in a Hugo site also, as Hugo pairs them, files
  with the same path below their content folder once the language suffix is removed;
* tags: ``tags``, with biji's ``tags_zh`` (each tag's Chinese name, in an English note) or
  ``tags_en`` (each tag's English name, in a Chinese note whose ``tags`` are Chinese);
* old URLs: ``permalink`` and the aliases, but for the note's own address in biji (in either
  language) and the address its translated pair shares (:func:`own_addresses`);
* drafts: ``draft: true``, ``published: false``, or a file under ``_drafts/``;
* pages: ``type``/``layout: page``, or a file under a ``pages``/``_pages`` folder;
* the summary: front matter, else the text above Hexo's ``<!-- more -->``;
* a translated note's sync state: biji's ``translation_synced`` (:mod:`.sync_state`); a value
  that is not block hashes is ignored with a warning, and the file is imported.

Files without front matter (READMEs), Hugo's ``_index.md`` section files and biji's data
file are not notes; the data file (:mod:`.export`) is read as :class:`.records.SiteData`.
"""

import re
from datetime import date, datetime, time
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from blog.models import Language
from blog.porting import body as bodies
from blog.porting import frontmatter, sync_state
from blog.porting.formats import AUTO, FORMATS
from blog.porting.hugo_site import HugoSite, read_hugo_site
from blog.porting.limits import MAX_DATA_FILE_VALUES, MAX_MARKDOWN_BYTES, MAX_TAGS
from blog.porting.records import NOTE, PAGE, NoteRecord, SiteData
from blog.porting.site_config import LANGUAGES, address
from blog.porting.wording import refusal, worded
from blog.rendering import render_markdown
from blog.text.cjk import CJK_RE
from blog.text.date_range import ORIGINAL, PUBLICATION
from blog.text.slugs import ascii_slug

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown"}
JEKYLL_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)$")
LONG_YEAR = re.compile(r"^[+-]?(\d{5,})-")
LANG_SUFFIX = re.compile(r"^(?P<stem>.+)\.(?P<lang>zh|zh-cn|zh-hans|zh-tw|en|en-us|en-gb)$", re.I)
DATA_FILES = ("data/biji.yaml", "source/_data/biji.yaml", "_data/biji.yaml")
MAX_POSITION = 32767  # a PositiveSmallIntegerField on every database
SKIPPED_DIRS = {"node_modules", "public", "_site", "themes", "resources", ".git"}
# A translation key Hugo's paths gave (files that pair by path), not the file: none to keep.
HUGO_PATH_KEY = "hugo:"


class RecordError(ValueError):
    """A file cannot become a note; ``line`` points at the cause when known.

    The message is worded when the report is shown (:mod:`.wording`): raised again with
    another line, it is passed on as it is (``error.args[0]``), not as text."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


def language_code(value):
    """``zh``, ``zh-CN``, ``zh_Hans``, ``Chinese`` → ``zh-hans``; ``en-US`` → ``en``; else ""."""
    value = str(value or "").strip().lower().replace("_", "-")
    if value.startswith("zh") or value in ("chinese", "中文", "cn"):
        return Language.CHINESE
    if value.startswith("en") or value == "english":
        return Language.ENGLISH
    return ""


def guess_language(title, body):
    if CJK_RE.search(title):
        return Language.CHINESE
    sample = body[:2000]
    return Language.CHINESE if len(CJK_RE.findall(sample)) > len(sample) // 20 else Language.ENGLISH


def as_datetime(value, what, years=PUBLICATION):
    """An aware datetime from YAML/TOML's datetime, date or text; naive means TIME_ZONE.

    Refused with the reason when outside ``years`` (:mod:`blog.text.date_range`): publication
    and edit times by default, the original date of a translated article with ``ORIGINAL``.
    ``what`` names the value in the reason: its key, or "file name".
    """
    written = value
    refused = _("%(key)s: %(value)s: %(reason)s")
    not_a_date = _("%(key)s: %(value)s is not a date")
    if isinstance(value, str):
        text = value.strip().replace("/", "-")
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            year = LONG_YEAR.match(text)
            if year and years.error(int(year[1])):  # 10000-01-01: no datetime holds it
                reason = refusal(years)
                raise RecordError(
                    worded(refused, key=what, value=repr(value), reason=reason)
                ) from None
            raise RecordError(worded(not_a_date, key=what, value=repr(value))) from None
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime.combine(value, time())
    if not isinstance(value, datetime):
        raise RecordError(worded(not_a_date, key=what, value=repr(value)))
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(settings.TIME_ZONE))
    if years.error(value):
        raise RecordError(worded(refused, key=what, value=written, reason=refusal(years)))
    return value


def as_list(value, what="a list"):
    """Names from text (comma-separated), a list (Hexo's nested categories, ``[[A, B]]``,
    are flattened) or one plain value; a mapping is not a name."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        flat = []
        for item in value:  # Hexo's nested categories: [[A, B]] is the path A > B
            flat.extend(as_list(item, what))
        return [item for item in flat if item]
    if isinstance(value, dict):
        mapping = _("%(key)s: names or a list of names, not a mapping")
        raise RecordError(worded(mapping, key=what))
    return [str(value).strip()]


# How a generator reads names written as text rather than a list: Jekyll splits at spaces
# (``tags: cuda scheduling``), Hexo takes the text as one name; Hugo's sites and folders of
# unknown origin are read as biji always has, split at commas.
SPLIT_AT = {"jekyll": "space", "hexo": "none"}


def names(value, what="a list", generator=""):
    """:func:`as_list`, with text read by ``generator``'s rule (:data:`SPLIT_AT`)."""
    rule = SPLIT_AT.get(generator, "comma")
    if isinstance(value, str) and rule == "space":
        return [part for part in re.split(r"[\s,]+", value) if part]
    if isinstance(value, str) and rule == "none":
        return [value.strip()] if value.strip() else []
    return as_list(value, what)


def as_bool(value):
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "on")
    return bool(value)


def url_path(value):
    """An old URL's path, decoded, starting with ``/``."""
    path = unquote(urlsplit(str(value).strip()).path)
    return path if path.startswith("/") else f"/{path}"


def discover(paths):
    """(file, site root) for every Markdown file under ``paths``, sorted, and data files."""
    files, data = [], []
    for given in map(Path, paths):
        root = given if given.is_dir() else site_root_of(given)
        if given.is_file():
            files.append((given, root))
            continue
        for rel in DATA_FILES:
            if (given / rel).is_file():
                data.append((given / rel, given))
        for path in sorted(given.rglob("*")):
            inside = path.relative_to(given).parts
            if path.suffix.lower() in MARKDOWN_SUFFIXES and path.is_file():
                if not SKIPPED_DIRS.intersection(inside) and path.name != "_index.md":
                    files.append((path, given))
    return files, data


def site_root_of(path):
    for parent in path.resolve().parents:
        if any((parent / name).is_dir() for name in ("content", "source", "_posts", "static")):
            return parent
    return path.resolve().parent


class SiteLayout:
    """What a site's folder says about its files: the generator of each, and for Hugo its
    languages (read once per imported folder)."""

    def __init__(self, root, fmt_name="auto"):
        self.root = Path(root)
        self.told = fmt_name if fmt_name in FORMATS else ""
        hugo_possible = self.told in ("", "hugo")
        self.hugo = read_hugo_site(self.root) if hugo_possible else HugoSite()

    def generator_of(self, rel):
        """``hugo``, ``hexo``, ``jekyll``, or "" when neither the import nor the folder says."""
        if self.told:
            return self.told
        parts = PurePosixPath(rel).parts
        if parts[:1] == ("source",):
            return "hexo"
        if "_posts" in parts or "_drafts" in parts:
            return "jekyll"
        if parts[:1] == ("content",) or self.hugo.found or self.hugo.content_dirs:
            return "hugo"
        return ""


def generator_of(path, root):
    return SiteLayout(root).generator_of(path.relative_to(root).as_posix())


def read_site_data(path, root):
    source = str(path.relative_to(root))
    text = path.read_text("utf-8")
    document = frontmatter.split(f"---\n{text}\n---\n", max_values=MAX_DATA_FILE_VALUES)
    meta = document.meta
    return SiteData(
        source=source,
        site=meta.get("site") or {},
        navigation=meta.get("navigation") or [],
        series=meta.get("series") or [],
        tags=meta.get("tags") or [],
    )


def read_file(path, root, fmt_name="auto", kept=None, layout=None):
    """One Markdown file → a :class:`NoteRecord`; :class:`RecordError` or
    :class:`.frontmatter.FrontMatterError` if it cannot be one; None if it is not a note.

    ``layout``: the folder's :class:`SiteLayout`, shared by its files (read when not given)."""
    layout = layout or SiteLayout(root, fmt_name)
    rel = path.relative_to(root)
    generator = layout.generator_of(rel.as_posix())
    fmt = FORMATS.get(fmt_name, AUTO)  # keys: every generator's unless told (they agree)
    size = path.stat().st_size
    if size > MAX_MARKDOWN_BYTES:
        too_large = _(
            "the file is %(size).1f MB: Markdown files over %(limit)d MB are not imported"
        )
        raise RecordError(
            worded(too_large, size=size / 1024 / 1024, limit=MAX_MARKDOWN_BYTES // 1024 // 1024)
        )
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise RecordError(_("not UTF-8 text")) from None
    document = frontmatter.split(text)
    if not document.syntax:
        return None
    record = NoteRecord(
        source=str(rel),
        base_dir=path.parent,
        file_stem=path.stem,
        site_root=root,
        key_lines=document.key_lines,
    )
    record.body_line = len(text.split("\n")) - len(document.body.split("\n")) + 1
    values = {}
    for key, value in document.meta.items():
        if (name := fmt.field_for(key)) and name not in values:
            values[name] = (key, value)
    _fill(record, values, generator, folder_categories(rel) if generator == "jekyll" else [])
    folder_parts = {part.lower() for part in rel.parts[:-1]}
    if "_drafts" in folder_parts:
        record.draft = True
    if "pages" in folder_parts or "_pages" in folder_parts:
        record.kind = PAGE
    _derive_from_path(record, path)
    if generator == "hugo":
        _hugo_language_and_key(record, rel, path, layout.hugo)
    if not record.title:
        raise RecordError(_("no title"), 1)
    body = (
        bodies.translate(
            document.body, lambda offset, tag: kept(record, document.body, offset, tag)
        )
        if kept
        else bodies.translate(document.body, lambda *a: None)
    )
    record.body = body
    if not record.summary and (head := bodies.split_more(body)):
        record.summary = render_markdown(head).plain_text.strip()
    record.language = record.language or guess_language(record.title, body)
    record.slug = ascii_slug(record.slug) or ascii_slug(record.title) or "note"
    own = own_addresses(record)
    record.old_paths = [path for path in record.old_paths if path not in own]
    return record


def own_addresses(record):
    """Where biji serves the record's note or page, in either language, and the address its
    translated pair shares (``/notes/<translation key>/``: jekyll-polyglot links a pair by
    one permalink, which biji's Jekyll export writes): a permalink there needs no redirect."""
    slugs = [record.slug]
    if record.kind == NOTE and re.fullmatch(r"[-a-zA-Z0-9_]+", record.translation_key):
        slugs.append(record.translation_key)
    return {address(record.kind, slug, code) for slug in slugs for code, _name, _tag in LANGUAGES}


def _fill(record, values, generator="", folder_categories=()):
    def get(name, default=None):
        return values[name][1] if name in values else default

    def line(name):
        return record.line_of(values[name][0]) if name in values else None

    record.title = str(get("title") or "").strip()
    record.slug = str(get("slug") or "").strip()
    if "language" in values:
        record.language = language_code(get("language"))
        if not record.language:
            neither = _("language %(value)s is neither Chinese nor English")
            raise RecordError(worded(neither, value=repr(get("language"))), line("language"))
    for name, attr in (("published_at", "published_at"), ("updated_at", "updated_at")):
        if get(name) not in (None, ""):
            try:
                setattr(record, attr, as_datetime(get(name), values[name][0]))
            except RecordError as error:
                raise RecordError(error.args[0], line(name)) from None
    record.draft = as_bool(get("draft", False)) or not as_bool(get("published", True))
    record.kind = PAGE if str(get("kind", "")).lower() == "page" else NOTE
    record.summary = str(get("summary") or "").strip()
    for name in ("tags", "series", "old_paths", "category", "tag"):
        if name in values:
            try:
                as_list(get(name), values[name][0])
            except RecordError as error:
                raise RecordError(error.args[0], line(name)) from None
    record.tags = names(get("tags"), generator=generator)
    record.tags += [t for t in names(get("tag"), generator="hexo") if t not in record.tags]
    record.tags_zh = _names_beside_tags(get("tags_zh"), line("tags_zh"), record.tags)
    if get("tags_en") not in (None, ""):
        record.tags, record.tags_zh = _english_names(
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
        record.series_position = _position(get("series_position"), line("series_position"))
    record.translation_key = str(get("translation_key") or "").strip()
    for name in ("source_title", "source_author", "source_url"):
        setattr(record, name, str(get(name) or "").strip())
    if get("author") and record.source_url and not record.source_author:
        record.source_author = str(get("author")).strip()
    if get("source_date") not in (None, ""):
        try:
            record.source_date = as_datetime(get("source_date"), "source_date", ORIGINAL).date()
        except RecordError as error:
            raise RecordError(error.args[0], line("source_date")) from None
    cover = get("cover")
    if isinstance(cover, dict):  # PaperMod and friends: cover: {image: …, alt: …}
        record.cover_alt = str(cover.get("alt") or "")
        cover = cover.get("image")
    record.cover = str(cover or "").strip()
    record.cover_alt = str(get("cover_alt") or record.cover_alt).strip()
    record.old_paths = [url_path(p) for p in as_list(get("old_paths"))]
    if "synced_hashes" in values:
        try:
            record.synced_hashes = sync_state.read(get("synced_hashes"), values["synced_hashes"][0])
        except sync_state.SyncStateError as error:
            record.warnings.append((error.args[0], line("synced_hashes")))
    if permalink := get("permalink"):
        record.old_paths.insert(0, url_path(permalink))
        if not record.slug:
            record.slug = url_path(permalink).rstrip("/").rsplit("/", 1)[-1].split(".")[0]


def _names_beside_tags(value, line, tags=()):
    """``tags_zh``: each tag's Chinese name, as a mapping from the name in ``tags`` (what
    biji writes: tags without a Chinese name are left out) or, as older exports wrote it, a
    list in the order of ``tags`` ("" for none; text: comma-separated)."""
    if value is None or value == "":
        return []
    if isinstance(value, dict):
        if any(isinstance(v, (list, dict)) for v in value.values()):
            raise RecordError(_("tags_zh must map each tag to its Chinese name"), line)
        given = {str(k).strip(): "" if v is None else str(v).strip() for k, v in value.items()}
        return [given.get(tag, "") for tag in tags]
    if isinstance(value, str):
        return as_list(value)
    if not isinstance(value, list) or any(isinstance(v, (list, dict)) for v in value):
        raise RecordError(_("tags_zh must be a list of names, in the order of tags"), line)
    return ["" if v is None else str(v) for v in value]


def _english_names(value, line, tags, tags_zh):
    """``tags_en`` (biji's, in a Chinese note whose ``tags`` name its tags in Chinese): each
    tag's English name by its name in ``tags``. The tags are then found by their English
    names, their Chinese ones beside them, as an English note's ``tags_zh`` gives them."""
    if not isinstance(value, dict) or any(isinstance(v, (list, dict)) for v in value.values()):
        raise RecordError(_("tags_en must map each tag to its English name"), line)
    given = {str(k).strip(): "" if v is None else str(v).strip() for k, v in value.items()}
    chinese = list(tags_zh) + [""] * (len(tags) - len(tags_zh))
    english = list(tags)
    for index, name in enumerate(tags):
        if given.get(name):
            english[index] = given[name]
            chinese[index] = chinese[index] or name
    return english, chinese


def _position(value, line):
    """``series_position``: a whole number from 1 to what the database holds (32767)."""
    if isinstance(value, bool):
        value = None
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise RecordError(_("series_position must be a whole number"), line)
    if not 1 <= value <= MAX_POSITION:
        runs = _("series_position runs from 1 to %(last)d")
        raise RecordError(worded(runs, last=MAX_POSITION), line)
    return value


def _derive_from_path(record, path):
    stem = path.stem
    if match := LANG_SUFFIX.match(stem):
        stem = match["stem"]
        record.language = record.language or language_code(match["lang"])
    if stem.lower() == "index" and path.parent.name:  # a Hugo page bundle or Hexo page
        stem = path.parent.name
    if match := JEKYLL_NAME.match(stem):
        stem = match[4]
        if record.published_at is None:
            try:
                day = date(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                wrong = _("the file name's date %(date)s is not a date")
                raise RecordError(worded(wrong, date=repr(stem[:10]))) from None
            record.published_at = as_datetime(day, _("file name"))
    record.slug = record.slug or stem


def folder_categories(rel):
    """Jekyll's categories from the folders above ``_posts`` (or ``_drafts``)."""
    parts = rel.parts[:-1]
    for special in ("_posts", "_drafts"):
        if special in parts:
            return [part for part in parts[: parts.index(special)] if part]
    return []


def _hugo_language_and_key(record, rel, path, site):
    """Hugo's rules for what the front matter does not say (:mod:`.hugo_site`): the language
    from the content folder or ``defaultContentLanguage``, the translation key from the path."""
    if not record.language:
        record.language = language_code(site.language_of(rel.as_posix()))
    if not record.translation_key:
        stem = path.stem
        if match := LANG_SUFFIX.match(stem):
            stem = match["stem"]
        record.translation_key = f"{HUGO_PATH_KEY}{site.key_path(rel.as_posix(), stem)}"
