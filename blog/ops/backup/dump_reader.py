"""Reading the portable dump (``data.json``) one row at a time, so that a restore's memory does
not grow with the site: ``json.load`` held the whole decoded dump (~930 MB at 10,000 notes).

The dump is written by :func:`blog.ops.backup.portable.dump`: ``{"format": …, "models": [{"model":
label, "fields": [names], "rows": [[values], …]}, …]}``, the format first and, in each model,
its label and fields before its rows.

May import what :mod:`blog.ops` may.
"""

from collections.abc import Iterator
from dataclasses import dataclass

import ijson


class DumpError(Exception):
    """The file is not a portable dump as :func:`entries` reads it."""


@dataclass
class Entry:
    """One model of the dump: its label, its fields and its rows, read as they are iterated
    (once, and before the next entry is asked for)."""

    model: str
    fields: list[str]
    rows: Iterator[list]


def dump_format(path) -> str | None:
    """The dump's ``format``, read from the first bytes only."""
    with open(path, "rb") as stream:
        for prefix, event, value in _parsed(stream):
            if prefix == "format" and event == "string":
                return value
            if prefix == "models":
                return None
    return None


def entries(stream) -> Iterator[Entry]:
    """The dump's models in the order written. Floats come back as floats and integers as
    integers, as ``json.load`` gives them. A file that is not JSON raises :class:`DumpError`
    where it stops being JSON."""
    events = _parsed(stream)
    for prefix, event, _value in events:
        if (prefix, event) == ("models.item", "start_map"):
            yield _entry(events)


def _parsed(stream):
    try:
        yield from ijson.parse(stream, use_float=True)
    except ijson.JSONError as error:
        raise DumpError(f"not JSON: {error}") from error


def _entry(events) -> Entry:
    model, fields = None, []
    for prefix, event, value in events:
        if prefix == "models.item.model" and event == "string":
            model = value
        elif prefix == "models.item.fields.item" and event == "string":
            fields.append(value)
        elif (prefix, event) == ("models.item.rows", "start_array"):
            if model is None:
                raise DumpError("a model's rows come before its label")
            return Entry(model, fields, _rows(events))
        elif (prefix, event) == ("models.item", "end_map"):
            return Entry(model, fields, iter(()))
    raise DumpError("the dump ends inside a model")


def _rows(events) -> Iterator[list]:
    builder = None
    for prefix, event, value in events:
        if prefix == "models.item.rows" and event == "end_array":
            return
        if builder is None:
            builder = ijson.ObjectBuilder()
        builder.event(event, value)
        if prefix == "models.item.rows.item" and event == "end_array":
            yield builder.value
            builder = None
    raise DumpError("the dump ends inside a model's rows")
