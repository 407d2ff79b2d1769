"""The glossary as one YAML file of an export, beside the data file, and read back.

Written deterministically for the round trip (terms by slug, keys in :data:`KEYS`' order, empty
values left out) and only when there are terms. Reading never touches the database: each
entry becomes a :class:`.records.TermRecord` or a problem at its line. Format: docs/moving.md.
"""

from pathlib import Path, PurePosixPath

import yaml
from django.utils.translation import gettext_lazy as _

from blog.models import Term
from blog.models.glossary import split_variants
from blog.porting import frontmatter
from blog.porting.formats import FORMATS
from blog.porting.limits import MAX_DATA_FILE_VALUES
from blog.porting.records import GlossaryData, TermRecord
from blog.porting.report import ERROR, WARNING, shorten
from blog.porting.wording import worded

FILE_NAME = "glossary.yaml"
HEADER = "# biji's glossary: one entry per term, in slug order (see docs/moving.md).\n"
TEXT_KEYS = ("slug", "english", "chinese", "definition_en", "definition_zh")
LIST_KEYS = ("english_variants", "chinese_variants", "explained_in")
KEYS = (
    "slug", "english", "chinese", "english_variants", "chinese_variants", "keep_in_english",
    "definition_en", "definition_zh", "explained_in",
)  # fmt: skip


def glossary_path(fmt):
    """Where the format's export keeps the glossary: beside its data file."""
    return str(PurePosixPath(fmt.data_file).with_name(FILE_NAME))


GLOSSARY_FILES = tuple(dict.fromkeys(glossary_path(fmt) for fmt in FORMATS.values()))


def text(value):
    """A definition as the file holds it: ``\\n`` line endings, no surrounding whitespace."""
    return frontmatter.normalise_newlines(value or "").strip()


# --- writing ------------------------------------------------------------------------------


def entry(term):
    """One term as the file holds it, empty values left out."""
    values = {
        "slug": term.slug,
        "english": term.english,
        "chinese": term.chinese,
        "english_variants": split_variants(term.english_variants),
        "chinese_variants": split_variants(term.chinese_variants),
        "keep_in_english": term.keep_in_english,
        "definition_en": text(term.definition_en),
        "definition_zh": text(term.definition_zh),
        "explained_in": sorted(note.slug for note in term.explained_in.all()),
    }
    return {key: values[key] for key in KEYS if values[key] not in ("", [], False)}


def dump():
    """The glossary file's text, or None when there are no terms."""
    terms = Term.objects.order_by("slug").prefetch_related("explained_in")
    entries = [entry(term) for term in terms]
    if not entries:
        return None
    return HEADER + frontmatter.dump_yaml({"terms": entries})


# --- reading ------------------------------------------------------------------------------


def discover(paths):
    """(file, site root) for the glossary file of every folder in ``paths``."""
    found = []
    for given in map(Path, paths):
        if given.is_dir():
            found += [(given / rel, given) for rel in GLOSSARY_FILES if (given / rel).is_file()]
    return found


def read(path, root):
    """The glossary file at ``path`` → :class:`.records.GlossaryData`; a file that is not a
    glossary at all raises :class:`.frontmatter.FrontMatterError`."""
    source = str(path.relative_to(root))
    data, node = frontmatter.load_yaml(path.read_text("utf-8"), MAX_DATA_FILE_VALUES)
    items = data.get("terms") if isinstance(data, dict) else None
    if not isinstance(data, dict) or "terms" not in data or not isinstance(items, list | None):
        raise frontmatter.FrontMatterError(_("a glossary file holds “terms:”, a list of terms"), 1)
    glossary = GlossaryData(source=source)
    lines = _item_lines(node)
    seen = set()
    for number, item in enumerate(items or [], start=1):
        line = lines[number - 1] if number <= len(lines) else None
        try:
            record = _record(item, number, source, line, glossary)
        except _EntryError as error:
            glossary.problems.append((ERROR, error.args[0], line))
            continue
        if record.slug in seen:
            twice = _("glossary term %(slug)s: given twice; the first one is imported")
            glossary.problems.append((ERROR, worded(twice, slug=record.slug), line))
            continue
        seen.add(record.slug)
        glossary.terms.append(record)
    return glossary


class _EntryError(ValueError):
    """One entry cannot become a term; its message is worded when the report is shown."""


def _item_lines(node):
    """The line of each entry of ``terms``, from the parsed document."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if key.value == "terms" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _record(item, number, source, line, glossary):
    if not isinstance(item, dict):
        not_mapping = _("glossary entry %(number)d: not a mapping of keys to values")
        raise _EntryError(worded(not_mapping, number=number))
    slug = _text(item.get("slug"), "slug", worded(_("glossary entry %(number)d"), number=number))
    if not slug:
        raise _EntryError(worded(_("glossary entry %(number)d: no slug"), number=number))
    what = worded(_("glossary term %(slug)s"), slug=shorten(slug, 60))
    for key in item:
        if key not in KEYS:
            ignored = _("%(what)s: “%(key)s”: not read (not a key biji reads)")
            glossary.problems.append((WARNING, worded(ignored, what=what, key=key), line))
    values = {key: _text(item.get(key), key, what) for key in TEXT_KEYS}
    values["english"] = " ".join(values["english"].split())  # as Term.save() keeps them
    values["chinese"] = "".join(values["chinese"].split())
    if not (values["english"] or values["chinese"]):
        no_name = _("%(what)s: needs a Chinese or an English form")
        raise _EntryError(worded(no_name, what=what))
    lists = {key: _names(item.get(key), key, what) for key in LIST_KEYS}
    keep = item.get("keep_in_english", False)
    if not isinstance(keep, bool):
        not_bool = _("%(what)s: keep_in_english must be true or false")
        raise _EntryError(worded(not_bool, what=what))
    return TermRecord(
        source=source,
        line=line,
        slug=values["slug"],
        english=values["english"],
        chinese=values["chinese"],
        english_variants=split_variants("\n".join(lists["english_variants"])),
        chinese_variants=split_variants("\n".join(lists["chinese_variants"])),
        keep_in_english=keep,
        definition_en=text(values["definition_en"]),
        definition_zh=text(values["definition_zh"]),
        explained_in=list(dict.fromkeys(lists["explained_in"])),
    )


def _text(value, key, what):
    if value is None:
        return ""
    if isinstance(value, list | dict) or isinstance(value, bool):
        not_text = _("%(what)s: %(key)s must be text")
        raise _EntryError(worded(not_text, what=what, key=key))
    return str(value).strip()


def _names(value, key, what):
    """A list of names, or text with one per line or comma-separated."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return split_variants(value)
    if not isinstance(value, list) or any(isinstance(v, list | dict) for v in value):
        not_list = _("%(what)s: %(key)s must be a list of names")
        raise _EntryError(worded(not_list, what=what, key=key))
    return [str(v).strip() for v in value if v is not None and str(v).strip()]
