"""What every importer produces and the importer stores: format-free notes and pages (and
biji's site data and glossary), so one report, transaction and idempotence rule serve all.
"""

from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

NOTE, PAGE = "note", "page"


@dataclass
class NoteRecord:
    source: str  # the file (or file#item) named in the report
    kind: str = NOTE
    title: str = ""
    slug: str = ""
    language: str = ""
    draft: bool = False
    published_at: datetime | None = None
    updated_at: datetime | None = None
    body: str = ""
    summary: str = ""
    tags: list[str] = field(default_factory=list)
    tags_zh: list[str] = field(default_factory=list)  # Chinese names, beside ``tags``
    series: str = ""  # a series' title or slug (from categories), in the note's language
    series_zh: str = ""  # the series' name in Chinese and English, where the file gives it
    series_en: str = ""
    series_position: int | None = None
    translation_key: str = ""
    source_title: str = ""
    source_author: str = ""
    source_url: str = ""
    source_date: date | None = None
    translator: str = ""  # credits, as the note's language writes them
    coauthors: str = ""
    # Dated corrections [(time, text)]; None: not given, the note keeps what it has.
    corrections: list | None = None
    cover: str = ""  # a path or URL as written in the source
    cover_alt: str = ""
    old_paths: list[str] = field(default_factory=list)
    # A translated note's sync state as ``Note.synced_hashes`` holds it; None: not given, the
    # note keeps what it has or linking gives (.sync_state).
    synced_hashes: str | None = None
    base_dir: Path | None = None  # where relative file references are resolved
    file_stem: str = ""  # Hexo keeps a post's images in a folder named like the file
    site_root: Path | None = None  # the imported folder: nothing outside it is read
    body_line: int = 1  # the body's first line in the source file, for reports
    key_lines: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)  # (message, line): read, but with a problem

    def line_of(self, key):
        return self.key_lines.get(key)


@dataclass
class SiteData:
    """biji's own data file: everything that is not a note or page (see :mod:`.export`)."""

    source: str
    site: dict = field(default_factory=dict)
    navigation: list = field(default_factory=list)
    series: list = field(default_factory=list)
    tags: list = field(default_factory=list)


@dataclass
class TermRecord:
    """A glossary term as biji's glossary file gives it (:mod:`.glossary_file`), normalised as
    :class:`blog.models.Term` stores it; ``explained_in`` are note slugs."""

    source: str
    line: int | None
    slug: str
    english: str = ""
    chinese: str = ""
    english_variants: list[str] = field(default_factory=list)
    chinese_variants: list[str] = field(default_factory=list)
    keep_in_english: bool = False
    definition_en: str = ""
    definition_zh: str = ""
    explained_in: list[str] = field(default_factory=list)


@dataclass
class GlossaryData:
    """biji's glossary file: its terms, and (level, message, line) for each unreadable entry."""

    source: str
    terms: list = field(default_factory=list)
    problems: list = field(default_factory=list)
