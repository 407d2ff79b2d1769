"""One table per format: which front-matter key holds which field, and where files go.

Import reads a key through the table of the format it is told (``auto``: all three, which
never disagree on a key); export writes each field under the *first* key its format's table
lists for it, in the table's order. So what export writes, import reads back, and the files'
layout is fixed: that is half of the byte-identical round trip (the other half is
:mod:`.frontmatter`).

Fields (see :class:`.records.NoteRecord`), beyond the obvious ones:

* ``draft`` is true for a draft; ``published`` is its inverse (Hexo, Jekyll);
* ``kind`` is ``page`` for a page (Hugo ``type``, Hexo and Jekyll ``layout``);
* ``series`` takes the first of the categories (further ones become tags), named in the note's
  language; ``series_zh``/``series_en`` (biji's) give its name in the other language;
* ``tags`` and ``categories`` written as text: Jekyll splits them at spaces
  (``tags: cuda scheduling`` is two tags), Hexo takes the text as one name, Hugo and folders of
  unknown origin split at commas (:func:`.markdown_import.names`);
* ``permalink`` is the old URL (its last segment is the slug when none is given), unless it is
  the note's own address in biji or the address a translated pair shares (what export writes);
  ``old_paths`` are further old URLs (Hugo ``aliases``, Jekyll ``redirect_from``);
* ``author`` is an article's original author only beside a source URL: on most blogs it is
  the blog's own author;
* ``tags`` are named in the note's language; ``tags_zh`` (an English note's) and ``tags_en``
  (a Chinese note's) give each tag's name in the other language.

How each generator tells languages apart (export writes them so; :mod:`.site_config`
writes the site configuration that declares both languages): Hugo by the file name's language
suffix (``warp.en.md``, the default language zh-hans without one; a pair's files share a
name), Jekyll by ``lang`` as jekyll-polyglot reads it (a pair shares its ``permalink``), Hexo
by ``lang`` as its i18n reads it (each note states its address in ``permalink``).

Keys that only biji has use the model's names (``source_url``, ``series_position``,
``cover``, ``tags_zh``…), the same in every format; ``translation_synced``, a translated
note's sync state (:mod:`.sync_state`), is written last. Other generators ignore them.
"""

from dataclasses import dataclass

BIJI_KEYS = (
    ("tags_zh", "tags_zh"),
    ("tags_en", "tags_en"),
    ("series_position", "series_position"),
    ("cover", "cover"),
    ("cover_alt", "cover_alt"),
    ("source_title", "source_title"),
    ("source_author", "source_author"),
    ("source_url", "source_url"),
    ("source_date", "source_date"),
)


@dataclass(frozen=True)
class Format:
    name: str
    keys: tuple  # (front-matter key, field), export order; first key per field is written
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
        return next((key for key, name in self.keys if name == field), None)

    def field_for(self, key):
        return dict(self.keys).get(key)


HUGO = Format(
    name="hugo",
    keys=(
        ("title", "title"),
        ("slug", "slug"),
        ("lang", "language"),
        ("date", "published_at"),
        ("lastmod", "updated_at"),
        ("draft", "draft"),
        ("type", "kind"),
        ("translationKey", "translation_key"),
        ("summary", "summary"),
        ("tags", "tags"),
        ("tags_zh", "tags_zh"),
        ("tags_en", "tags_en"),
        ("categories", "series"),
        ("series_zh", "series_zh"),
        ("series_en", "series_en"),
        ("series_position", "series_position"),
        ("cover", "cover"),
        ("cover_alt", "cover_alt"),
        ("source_title", "source_title"),
        ("source_author", "source_author"),
        ("source_url", "source_url"),
        ("source_date", "source_date"),
        ("aliases", "old_paths"),
        ("translation_synced", "synced_hashes"),
        # Read, never written:
        ("language", "language"),
        ("publishDate", "published_at"),
        ("description", "summary"),
        ("weight", "series_position"),
        ("image", "cover"),
        ("url", "permalink"),
        ("author", "author"),
        ("original", "source_url"),
    ),
    notes_dir="content/posts",
    pages_dir="content/pages",
    media_dir="static/media",
    data_file="data/biji.yaml",
    language_suffix=True,
)

HEXO = Format(
    name="hexo",
    keys=(
        ("title", "title"),
        ("slug", "slug"),
        ("permalink", "permalink"),
        ("lang", "language"),
        ("date", "published_at"),
        ("updated", "updated_at"),
        ("published", "published"),
        ("layout", "kind"),
        ("translation_key", "translation_key"),
        ("excerpt", "summary"),
        ("tags", "tags"),
        ("tags_zh", "tags_zh"),
        ("tags_en", "tags_en"),
        ("categories", "series"),
        ("series_zh", "series_zh"),
        ("series_en", "series_en"),
        *BIJI_KEYS[2:],
        ("alias", "old_paths"),
        ("translation_synced", "synced_hashes"),
        ("language", "language"),
        ("description", "summary"),
        ("thumbnail", "cover"),
        ("author", "author"),
        ("original", "source_url"),
        ("draft", "draft"),
    ),
    notes_dir="source/_posts",
    pages_dir="source/pages",
    media_dir="source/media",
    data_file="source/_data/biji.yaml",
    permalinks="all",
    template_switch=("disableNunjucks", True),
)

JEKYLL = Format(
    name="jekyll",
    keys=(
        ("title", "title"),
        ("slug", "slug"),
        ("permalink", "permalink"),
        ("lang", "language"),
        ("date", "published_at"),
        ("last_modified_at", "updated_at"),
        ("published", "published"),
        ("layout", "kind"),
        ("translation_key", "translation_key"),
        ("excerpt", "summary"),
        ("tags", "tags"),
        ("tags_zh", "tags_zh"),
        ("tags_en", "tags_en"),
        ("categories", "series"),
        ("series_zh", "series_zh"),
        ("series_en", "series_en"),
        ("series_position", "series_position"),
        ("image", "cover"),
        *BIJI_KEYS[4:],
        ("redirect_from", "old_paths"),
        ("translation_synced", "synced_hashes"),
        # Jekyll's singular forms: one name each, never split.
        ("category", "category"),
        ("tag", "tag"),
        ("language", "language"),
        ("description", "summary"),
        ("ref", "translation_key"),
        ("cover", "cover"),
        ("author", "author"),
        ("original", "source_url"),
        ("draft", "draft"),
    ),
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
AUTO = Format("auto", _merged(), "", "", "", "")

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
