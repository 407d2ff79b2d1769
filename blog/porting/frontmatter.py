"""Front matter: read YAML (``---``) or TOML (``+++``) blocks, write YAML deterministically.

Reading keeps the line of every top-level key, so a bad value is reported at its line.
Writing is what makes the round trip byte-identical: keys in the order the caller gives,
lists of plain values on one line, multi-line text as ``|`` blocks, times as RFC 3339 with
their offset (``2025-08-17T21:40:00+08:00``, which Hugo, Hexo and Jekyll all read), Unicode
written as itself, ``\\n`` line endings and no line folding.
"""

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime

import yaml

TOML_LINE = re.compile(r"at line (\d+)")
KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*[:=]")


class FrontMatterError(ValueError):
    """The file's front matter cannot be read; ``line`` is the file's line number."""

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


def split(text):
    """Split ``text`` into a :class:`Document`; a file without front matter is all body."""
    text = normalise_newlines(text).removeprefix("\ufeff")
    lines = text.split("\n")
    fence = lines[0].rstrip()
    if fence not in ("---", "+++"):
        return Document({}, text, syntax="")
    closers = ("---", "...") if fence == "---" else ("+++",)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in closers), None)
    if end is None:
        raise FrontMatterError(f"the front matter opened by {fence!r} is never closed", 1)
    source = "\n".join(lines[1:end])
    meta = _parse_yaml(source) if fence == "---" else _parse_toml(source)
    key_lines = {}
    for number, line in enumerate(lines[1:end], start=2):
        if match := KEY_LINE.match(line):
            key_lines.setdefault(match[1], number)
    body = "\n".join(lines[end + 1 :])
    # One blank line after the front matter is layout, not content (export writes one).
    body = body.removeprefix("\n")
    return Document(meta, body, key_lines, "yaml" if fence == "---" else "toml")


def _parse_yaml(source):
    try:
        meta = yaml.safe_load(source) if source.strip() else {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise FrontMatterError(f"front matter is not valid YAML: {problem}", line) from None
    if not isinstance(meta, dict):
        raise FrontMatterError("front matter must be a mapping of keys to values", 2)
    return meta


def _parse_toml(source):
    try:
        return tomllib.loads(source)
    except tomllib.TOMLDecodeError as error:
        match = TOML_LINE.search(str(error))
        line = int(match[1]) + 1 if match else None
        raise FrontMatterError(f"front matter is not valid TOML: {error}", line) from None


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
