"""Markdown folders from Hugo, Hexo and Jekyll → :class:`.records.NoteRecord`.

Which files are notes, which generator wrote each (:func:`generator_of`), and what comes from
beyond the front matter (:mod:`.fields`): the slug, date and language from the file name, a
Hugo site's configuration (:mod:`.hugo_site`) or the text, Jekyll's categories from folders.
The rules: docs/moving.md.
"""

import re
from datetime import date
from pathlib import Path, PurePosixPath

from django.utils.translation import gettext_lazy as _

from blog.porting import body as bodies
from blog.porting import frontmatter
from blog.porting.fields import fill
from blog.porting.formats import AUTO, FORMATS
from blog.porting.hugo_site import HugoSite, read_hugo_site
from blog.porting.limits import MAX_DATA_FILE_VALUES, MAX_MARKDOWN_BYTES
from blog.porting.records import NOTE, PAGE, NoteRecord, SiteData
from blog.porting.site_config import LANGUAGES, address
from blog.porting.values import RecordError, as_datetime, guess_language, language_code
from blog.porting.wording import worded
from blog.rendering import render_markdown
from blog.text.slugs import ascii_slug

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown"}
JEKYLL_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)$")
LANG_SUFFIX = re.compile(r"^(?P<stem>.+)\.(?P<lang>zh|zh-cn|zh-hans|zh-tw|en|en-us|en-gb)$", re.I)
DATA_FILES = ("data/biji.yaml", "source/_data/biji.yaml", "_data/biji.yaml")
SKIPPED_DIRS = {"node_modules", "public", "_site", "themes", "resources", ".git"}
# A translation key Hugo's paths gave (files that pair by path), not the file: none to keep.
HUGO_PATH_KEY = "hugo:"


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
    """What a site's folder says of its files: each one's generator, and Hugo's languages."""

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
    """One Markdown file → a :class:`NoteRecord`, None if it is not a note; :class:`RecordError`
    or :class:`.frontmatter.FrontMatterError` if it cannot be one. ``layout``: the folder's."""
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
    fill(record, values, generator, folder_categories(rel) if generator == "jekyll" else [])
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
    """Where biji serves the record's note or page in either language, and the one address
    its pair shares (jekyll-polyglot's, which export writes): no redirect is needed there."""
    slugs = [record.slug]
    if record.kind == NOTE and re.fullmatch(r"[-a-zA-Z0-9_]+", record.translation_key):
        slugs.append(record.translation_key)
    return {address(record.kind, slug, code) for slug in slugs for code, _name, _tag in LANGUAGES}


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
