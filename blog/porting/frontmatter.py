"""Front matter: read YAML (``---``) or TOML (``+++``) blocks, write YAML deterministically.

Reading keeps each top-level key's line for the report and is bounded (:mod:`.limits`).
Writing makes the round trip byte-identical: keys in the caller's order, plain lists on one
line, ``|`` blocks, RFC 3339 times with their offset, ``\\n`` line endings, no folding.
"""

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime

import yaml
from django.utils.translation import gettext_lazy as _

from blog.porting.limits import MAX_FRONT_MATTER_VALUES
from blog.porting.wording import worded

TOML_LINE = re.compile(r"at line (\d+)")
KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*[:=]")


class FrontMatterError(ValueError):
    """The front matter cannot be read; ``line`` is the file's line; worded when shown."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


@dataclass
class Document:
    meta: dict
    body: str
    key_lines: dict = field(default_factory=dict)  # top-level key → line in the file
    syntax: str = "yaml"

    def line_of(self, key):
        return self.key_lines.get(key)


def normalise_newlines(text):
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split(text, max_values=MAX_FRONT_MATTER_VALUES):
    """``text`` as a :class:`Document` (no front matter: all body); over ``max_values`` refused."""
    text = normalise_newlines(text).removeprefix("\ufeff")
    lines = text.split("\n")
    fence = lines[0].rstrip()
    if fence not in ("---", "+++"):
        return Document({}, text, syntax="")
    closers = ("---", "...") if fence == "---" else ("+++",)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in closers), None)
    if end is None:
        never_closed = _("the front matter opened by %(fence)s is never closed")
        raise FrontMatterError(worded(never_closed, fence=repr(fence)), 1)
    source = "\n".join(lines[1:end])
    meta = _parse_yaml(source, max_values) if fence == "---" else _parse_toml(source, max_values)
    key_lines = {}
    for number, line in enumerate(lines[1:end], start=2):
        if match := KEY_LINE.match(line):
            key_lines.setdefault(match[1], number)
    body = "\n".join(lines[end + 1 :])
    # One blank line after the front matter is layout, not content (export writes one).
    body = body.removeprefix("\n")
    return Document(meta, body, key_lines, "yaml" if fence == "---" else "toml")


def _parse_yaml(source, max_values):
    try:
        meta = _load_yaml(source, max_values) if source.strip() else {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        not_yaml = _("front matter is not valid YAML: %(problem)s")
        raise FrontMatterError(worded(not_yaml, problem=problem), line) from None
    except RecursionError:
        raise FrontMatterError(_("front matter is nested too deeply"), 2) from None
    if not isinstance(meta, dict):
        raise FrontMatterError(_("front matter must be a mapping of keys to values"), 2)
    return meta


def _load_yaml(source, max_values):
    """``yaml.safe_load``, its expanded size checked on the node graph before anything is built."""
    loader = yaml.SafeLoader(source)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, _yaml_children, max_values) > max_values:
            raise FrontMatterError(_too_many_values(max_values), 2)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_yaml(text, max_values):
    """A whole YAML file (biji's glossary) → (its data, its parsed node, for the lines of its
    parts); bounded as front matter is. :class:`FrontMatterError` at the line of a problem."""
    loader = yaml.SafeLoader(normalise_newlines(text).removeprefix("\ufeff"))
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        if _expanded_size(node, _yaml_children, max_values) > max_values:
            raise FrontMatterError(_too_many_values(max_values), 1)
        return loader.construct_document(node), node
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        not_yaml = _("not valid YAML: %(problem)s")
        line = mark.line + 1 if mark is not None else None
        raise FrontMatterError(worded(not_yaml, problem=problem), line) from None
    except RecursionError:
        raise FrontMatterError(_("nested too deeply"), 1) from None
    finally:
        loader.dispose()


def _yaml_children(node):
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return ()


def _value_children(value):
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    return ()


def _too_many_values(max_values):
    too_many = _(
        "front matter holds more than %(count)s values (counting what YAML aliases repeat)"
    )
    return worded(too_many, count=f"{max_values:,}")


def _expanded_size(root, children, limit):
    """How many values ``root`` stands for with its aliases expanded, counted without expanding
    (each node once, iteratively), stopping past ``limit``; a node holding itself is endless."""
    sizes, open_nodes = {}, set()
    stack = [(root, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if closing:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children(node))
            if sizes[key] > limit:
                return sizes[key]
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            return float("inf")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children(node))
    return sizes[id(root)]


def _parse_toml(source, max_values):
    try:
        meta = tomllib.loads(source)
    except tomllib.TOMLDecodeError as error:
        match = TOML_LINE.search(str(error))
        line = int(match[1]) + 1 if match else None
        not_toml = _("front matter is not valid TOML: %(problem)s")
        raise FrontMatterError(worded(not_toml, problem=str(error)), line) from None
    except RecursionError:
        raise FrontMatterError(_("front matter is nested too deeply"), 2) from None
    if _expanded_size(meta, _value_children, max_values) > max_values:
        raise FrontMatterError(_too_many_values(max_values), 2)
    return meta


class _Dumper(yaml.SafeDumper):
    """SafeDumper with the representations export relies on (see the module docstring)."""

    def ignore_aliases(self, data):
        return True  # the same list twice is written twice, never as &anchor/*alias


def _represent_str(dumper, value):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _represent_datetime(dumper, value):
    text = value.isoformat(timespec="seconds")
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", text)


def _represent_date(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


def _represent_dict(dumper, value):
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=False)


_Dumper.add_representer(dict, _represent_dict)
_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(datetime, _represent_datetime)
_Dumper.add_representer(date, _represent_date)


def dump_yaml(data):
    """``data`` (a dict, in order) as YAML text; the same data always gives the same bytes."""
    return yaml.dump(
        data,
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None,  # lists of plain values inline, mappings as blocks
        width=2**31 - 1,  # never fold a long line: folding depends on the text's length
        line_break="\n",
    )


def join(meta, body):
    """A Markdown file: ``---`` front matter, a blank line, the body ending with a newline."""
    body = normalise_newlines(body)
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{dump_yaml(meta)}---\n\n{body}"
