"""Matching and ranking notes, per database, as ORM conditions on the note's id.

Which index answers a term depends on its kind (:class:`blog.search.text.Kind`) and on the
database (:mod:`blog.models.search_document`): on SQLite an FTS5 table (the one piece of raw SQL,
:func:`blog.search.sql.fts_ids`), on PostgreSQL a pg_trgm GIN index that ``__contains``
(``LIKE '%term%'``) uses. Short terms no index can look up (``a调``) are checked with
``StrIndex`` (``instr``/``strpos``) on the rows the other terms leave.

Ranking is the same on both: for every term 100 if it is in the title, else 10 if it is in a
tag name, else 1 (it is in the body); the sum, then the newest note first. Each "in the title"
is an uncorrelated ``IN`` subquery, so a set of note ids computed once per query, not a
look-up per matching note: a one-character query can match most notes, and ranking must not
cost a row read for each.
"""

from __future__ import annotations

from django.db import NotSupportedError
from django.db.models import Case, Q, Value, When
from django.db.models.functions import StrIndex
from django.db.models.lookups import GreaterThan

from blog.models.search_document import SearchDocument
from blog.search.sql import FTS_GRAMS, FTS_HEAD, FTS_TEXT, fts_ids, fts_string
from blog.search.text import Kind, cjk_units

TITLE_WEIGHT, TAG_WEIGHT, BODY_WEIGHT = 100, 10, 1
_GRAMS_OF = {"title": "title_grams", "tags": "tag_grams"}
_INDEXED_UNITS = {Kind.CJK, Kind.WORD}


def _units(terms) -> list[str]:
    """What the n-gram columns must hold for the note to have every term: the one- and
    two-character terms, and the CJK characters of the other short ones ("a调" needs "调")."""
    units = [term.text for term in terms if term.kind in _INDEXED_UNITS]
    for term in terms:
        if term.kind is Kind.SCAN:
            units += [unit for unit in cjk_units(term.text) if unit not in units]
    return units


def _has(field: str, text: str) -> GreaterThan:
    """``text`` is a substring of ``field``, checked row by row (no index can help)."""
    return GreaterThan(StrIndex(field, Value(text)), 0)


def _doc_ids(*conditions):
    return SearchDocument.objects.filter(*conditions).values("note_id")


class SearchBackend:
    vendor = ""

    def match(self, terms) -> Q:
        """A condition on notes: the note has every term."""
        raise NotImplementedError

    def in_field(self, field: str, term):
        """The ids of the notes with ``term`` in ``field`` ("title" or "tags"), for ``pk__in``.

        One- and two-character terms are looked up in the field's n-gram column: whole units
        make the look-up exact (" 3 " is the word "3", " 调 " the character anywhere).
        """
        raise NotImplementedError

    def score(self, terms):
        """An integer expression per note: title above tags above body (module docstring)."""
        cases = [
            Case(
                When(pk__in=self.in_field("title", term), then=Value(TITLE_WEIGHT)),
                When(pk__in=self.in_field("tags", term), then=Value(TAG_WEIGHT)),
                default=Value(BODY_WEIGHT),
            )
            for term in terms
        ]
        return sum(cases[1:], cases[0])


class SQLiteBackend(SearchBackend):
    vendor = "sqlite"

    def _indexed(self, terms, field: str) -> Q:
        condition = Q()
        substrings = [fts_string(t.text) for t in terms if t.kind is Kind.SUBSTRING]
        if substrings:
            condition &= Q(**{f"{field}__in": fts_ids(FTS_TEXT, " AND ".join(substrings))})
        units = [fts_string(unit) for unit in _units(terms)]
        if units:
            condition &= Q(**{f"{field}__in": fts_ids(FTS_GRAMS, " AND ".join(units))})
        return condition

    def match(self, terms):
        scans = [_has("text", t.text) for t in terms if t.kind is Kind.SCAN]
        if not scans:
            return self._indexed(terms, "pk")
        # Terms without an index: checked in the documents the indexed terms leave.
        return Q(pk__in=_doc_ids(self._indexed(terms, "note_id"), *scans))

    def in_field(self, field, term):
        if term.kind is Kind.SUBSTRING:
            return fts_ids(FTS_HEAD, f"{field} : {fts_string(term.text)}")
        if term.kind in _INDEXED_UNITS:
            return fts_ids(FTS_GRAMS, f"{_GRAMS_OF[field]} : {fts_string(term.text)}")
        return _doc_ids(_has(field, term.text))


class PostgreSQLBackend(SearchBackend):
    vendor = "postgresql"

    def match(self, terms):
        conditions = [Q(text__contains=t.text) for t in terms if t.kind is Kind.SUBSTRING]
        conditions += [Q(grams__contains=f" {unit} ") for unit in _units(terms)]
        conditions += [_has("text", t.text) for t in terms if t.kind is Kind.SCAN]
        return Q(pk__in=_doc_ids(*conditions))

    def in_field(self, field, term):
        if term.kind in _INDEXED_UNITS:
            return _doc_ids(Q(**{f"{_GRAMS_OF[field]}__contains": f" {term.text} "}))
        return _doc_ids(Q(**{f"{field}__contains": term.text}))


_BACKENDS = {backend.vendor: backend for backend in (SQLiteBackend(), PostgreSQLBackend())}


def backend_for(connection) -> SearchBackend:
    try:
        return _BACKENDS[connection.vendor]
    except KeyError:
        raise NotSupportedError(
            f"biji's search supports SQLite and PostgreSQL, not {connection.vendor}."
        ) from None
