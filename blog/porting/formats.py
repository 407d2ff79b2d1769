"""One table of front-matter fields: the key each generator uses, and where files go.

Each row of :data:`FIELDS` is a field of a note or page: the key Hugo, Hexo and Jekyll each
write it under, the further keys each reads, and its kind (:data:`TEXT`, :data:`DATE`…); each
generator's :class:`Format` is derived from it, so what export writes, import reads back (the
round trip's other half is :mod:`.frontmatter`). Keys only biji has use the model's names. The
keys, and how each generator tells languages apart: docs/moving.md.
"""

from dataclasses import dataclass

# How a field's value is read (:mod:`.values`, :mod:`.fields`) and written (:mod:`.export`):
TEXT = "text"  # text, surrounding whitespace stripped; written from the model's field, stripped
DATE = "date"  # a date and time (a time without offset is in TIME_ZONE); written to the second
ORIGINAL_DATE = "original date"  # a translated article's original date: a day, from year 1000
LANGUAGE = "language"  # zh, en and their variants → biji's language code
FLAG = "flag"  # true or false (``yes``, ``on``, ``1`` are true)
KIND = "kind"  # ``page`` for a page, anything else a note
NAMES = "names"  # names: a list, or text split by the generator's rule (:func:`.values.names`)
OTHER_NAMES = "other names"  # each tag's name in the other language, by its name in ``tags``
NAME = "name"  # one name, not a list
POSITION = "position"  # a whole number from 1
IMAGE = "image"  # a path or URL, or a mapping with ``image`` and ``alt`` (PaperMod)
PATH = "path"  # a URL whose path is kept
PATHS = "paths"  # URLs whose paths are kept
HASHES = "hashes"  # a translation's sync state (:mod:`.sync_state`)
CORRECTIONS = "corrections"  # dated one-line corrections, {date, text} each (:mod:`.corrections`)


@dataclass(frozen=True)
class Field:
    """One field and its keys: ``keys`` unless ``hugo``, ``hexo`` or ``jekyll`` says otherwise;
    a key is the one written, or (the key written or "", the keys only read)."""

    name: str
    value: str
    keys: str | tuple = ""
    hugo: str | tuple | None = None
    hexo: str | tuple | None = None
    jekyll: str | tuple | None = None

    def keys_of(self, generator):
        """(the key ``generator`` writes or "", the keys it only reads)."""
        keys = getattr(self, generator)
        keys = self.keys if keys is None else keys
        if isinstance(keys, str):
            return keys, ()
        return keys[0], keys[1:]


# In export order: each generator writes its keys in this order, ``translation_synced`` last.
FIELDS = (
    Field("title", TEXT, "title"),
    Field("slug", TEXT, "slug"),
    Field("permalink", PATH, "permalink", hugo=("", "url")),
    Field("language", LANGUAGE, ("lang", "language")),
    Field("published_at", DATE, "date", hugo=("date", "publishDate")),
    Field("updated_at", DATE, hugo="lastmod", hexo="updated", jekyll="last_modified_at"),
    Field("draft", FLAG, ("", "draft"), hugo="draft"),
    Field("published", FLAG, "published", hugo=""),
    Field("kind", KIND, "layout", hugo="type"),
    Field(
        "translation_key",
        TEXT,
        "translation_key",
        hugo="translationKey",
        jekyll=("translation_key", "ref"),
    ),
    Field("summary", TEXT, ("excerpt", "description"), hugo=("summary", "description")),
    Field("tags", NAMES, "tags"),
    Field("tags_zh", OTHER_NAMES, "tags_zh"),
    Field("tags_en", OTHER_NAMES, "tags_en"),
    Field("series", NAMES, "categories"),
    Field("series_zh", NAME, "series_zh"),
    Field("series_en", NAME, "series_en"),
    Field("series_position", POSITION, "series_position", hugo=("series_position", "weight")),
    Field(
        "cover", IMAGE, ("cover", "image"), hexo=("cover", "thumbnail"), jekyll=("image", "cover")
    ),
    Field("cover_alt", TEXT, "cover_alt"),
    Field("source_title", TEXT, "source_title"),
    Field("source_author", TEXT, "source_author"),
    Field("source_url", TEXT, ("source_url", "original")),
    Field("source_date", ORIGINAL_DATE, "source_date"),
    Field("translator", TEXT, "translator"),
    Field("coauthors", TEXT, "coauthors"),
    Field("corrections", CORRECTIONS, "corrections"),
    Field("old_paths", PATHS, hugo="aliases", hexo="alias", jekyll="redirect_from"),
    Field("synced_hashes", HASHES, "translation_synced"),
    # Read, never written: Jekyll's singular forms (one name each, never split), and the
    # original author (only beside a source URL).
    Field("category", NAMES, jekyll=("", "category")),
    Field("tag", NAMES, jekyll=("", "tag")),
    Field("author", TEXT, ("", "author")),
)


def written_keys(generator):
    """(key, field) for each field ``generator`` writes, in export order."""
    return tuple((key, field.name) for field in FIELDS if (key := field.keys_of(generator)[0]))


def read_keys(generator):
    """(key, field) for every key ``generator`` reads: those it writes, then the others."""
    also_read = ((key, field.name) for field in FIELDS for key in field.keys_of(generator)[1])
    return (*written_keys(generator), *also_read)


@dataclass(frozen=True)
class Format:
    name: str
    keys: tuple  # (front-matter key, field) for every key read
    written: tuple  # (front-matter key, field) for each field written, in export order
    notes_dir: str
    pages_dir: str
    media_dir: str  # served at /media/ by the static site, so /media/… links keep working
    data_file: str  # biji's site data: settings, navigation, series, tags
    dated_filenames: bool = False  # Jekyll's _posts/YYYY-MM-DD-slug.md
    language_suffix: bool = False  # Hugo: warp.en.md; a translation named like its original
    # Which notes state their address in ``permalink``: "pair" (jekyll-polyglot links a
    # translated pair by one permalink), "all" (Hexo: each note and page its own), or none.
    permalinks: str = ""
    # The front-matter switch that keeps the generator's template language out of a body that
    # holds its delimiters (``{{``, ``{%``): Jekyll's Liquid, Hexo's Nunjucks.
    template_switch: tuple = ()

    def key_for(self, field):
        """The key ``field`` is written under; None when the format does not write it."""
        return next((key for key, name in self.written if name == field), None)

    def field_for(self, key):
        return dict(self.keys).get(key)


HUGO = Format(
    name="hugo",
    keys=read_keys("hugo"),
    written=written_keys("hugo"),
    notes_dir="content/posts",
    pages_dir="content/pages",
    media_dir="static/media",
    data_file="data/biji.yaml",
    language_suffix=True,
)

HEXO = Format(
    name="hexo",
    keys=read_keys("hexo"),
    written=written_keys("hexo"),
    notes_dir="source/_posts",
    pages_dir="source/pages",
    media_dir="source/media",
    data_file="source/_data/biji.yaml",
    permalinks="all",
    template_switch=("disableNunjucks", True),
)

JEKYLL = Format(
    name="jekyll",
    keys=read_keys("jekyll"),
    written=written_keys("jekyll"),
    notes_dir="_posts",
    pages_dir="pages",
    media_dir="media",
    data_file="_data/biji.yaml",
    dated_filenames=True,
    permalinks="pair",
    template_switch=("render_with_liquid", False),
)

FORMATS = {f.name: f for f in (HUGO, HEXO, JEKYLL)}


def _merged():
    keys = {}
    for fmt in (HUGO, HEXO, JEKYLL):
        for key, name in fmt.keys:
            keys.setdefault(key, name)
    return tuple(keys.items())


# Reading a folder whose generator is not named: every key of every table (they agree).
AUTO = Format("auto", _merged(), (), "", "", "", "")

# WordPress WXR: element (namespace prefix as in the export) → field, read by .wordpress.
WORDPRESS = (
    ("title", "title"),
    ("wp:post_name", "slug"),
    ("wp:post_date_gmt", "published_at"),
    ("wp:post_modified_gmt", "updated_at"),
    ("wp:status", "draft"),  # anything but "publish" (and "future": scheduled) is a draft
    ("wp:post_type", "kind"),  # "post" or "page"; attachments are read as media
    ("content:encoded", "body"),  # HTML, converted to Markdown
    ("excerpt:encoded", "summary"),
    ("category[@domain='category']", "series"),
    ("category[@domain='post_tag']", "tags"),
    ("link", "permalink"),
    ("wp:postmeta[_thumbnail_id]", "cover"),
    ("wp:postmeta[translation_key]", "translation_key"),  # Polylang/WPML setups vary
    ("wp:postmeta[language]", "language"),
)
