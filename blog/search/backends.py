"""Matching and ranking notes per database: FTS5, or on PostgreSQL a GIN index of the units and
pg_trgm; ``StrIndex`` for short terms. Rank per group 100 title, 10 tag, 1 body, then newest,
with uncorrelated ``IN`` subqueries."""

from __future__ import annotations

import operator
from functools import cache, reduce

from django.db import NotSupportedError
from django.db.models import Case, Func, Q, TextField, Value, When
from django.db.models.functions import StrIndex
from django.db.models.lookups import GreaterThan

from blog.models.search_document import SearchDocument
from blog.search.sql import FTS_GRAMS, FTS_HEAD, FTS_TEXT, fts_ids, fts_string
from blog.search.text import Kind, cjk_units

TITLE_WEIGHT, TAG_WEIGHT, BODY_WEIGHT = 100, 10, 1
_GRAMS_OF = {"title": "title_grams", "tags": "tag_grams"}
_INDEXED_UNITS = {Kind.CJK, Kind.WORD}
_SUBSTRING_KINDS = {Kind.SUBSTRING, Kind.CJK}  # found anywhere in the text, not as a word


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


def _plain_terms(groups) -> list:
    """The terms every note must have: those of the groups of one term."""
    return [group[0] for group in groups if len(group) == 1]


def _choices(groups) -> list:
    """The groups of several terms, each without the terms that contain another: a note
    with "warp 束" has "warp", so "warp" alone finds the same notes in one look-up less."""
    choices = []
    for group in groups:
        if len(group) > 1:
            choices.append(tuple(term for term in group if not _contains_another(term, group)))
    return choices


def _contains_another(term, group) -> bool:
    return any(
        other.kind in _SUBSTRING_KINDS and other.text in term.text and other != term
        for other in group
    )


def scored_groups(groups) -> list:
    """What a note is scored on, one entry per group: its plain terms one by one, then each
    choice of several (both plans rank by these: :mod:`.ranked`)."""
    return [(term,) for term in _plain_terms(groups)] + _choices(groups)


def _any(conditions) -> Q:
    return reduce(operator.or_, conditions)


def _kinds_of(group, kinds) -> bool:
    return all(term.kind in kinds for term in group)


class SearchBackend:
    vendor = ""

    def match(self, groups) -> Q:
        """A condition on notes: the note has one term of every group."""
        raise NotImplementedError

    def in_field(self, field: str, term):
        """The ids of the notes with ``term`` in ``field`` ("title" or "tags"), for ``pk__in``;
        short terms are looked up as whole units in the n-gram column."""
        raise NotImplementedError

    def in_field_any(self, field: str, terms) -> Q:
        """A condition on notes: ``field`` has one of ``terms``."""
        return _any(Q(pk__in=self.in_field(field, term)) for term in terms)

    def score(self, groups):
        """An integer expression per note: title above tags above body (module docstring)."""
        cases = [
            Case(
                When(self.in_field_any("title", terms), then=Value(TITLE_WEIGHT)),
                When(self.in_field_any("tags", terms), then=Value(TAG_WEIGHT)),
                default=Value(BODY_WEIGHT),
            )
            for terms in scored_groups(groups)
        ]
        return sum(cases[1:], cases[0])


class SQLiteBackend(SearchBackend):
    vendor = "sqlite"

    def _indexed(self, terms, field: str, choices=()) -> Q:
        """``terms`` and ``choices`` (groups all of one index's kinds) as one FTS5 look-up per
        index."""
        condition = Q()
        substrings = [fts_string(t.text) for t in terms if t.kind is Kind.SUBSTRING]
        units = [fts_string(unit) for unit in _units(terms)]
        for group in choices:
            one_of = f"({' OR '.join(fts_string(term.text) for term in group)})"
            (substrings if _kinds_of(group, {Kind.SUBSTRING}) else units).append(one_of)
        if substrings:
            condition &= Q(**{f"{field}__in": fts_ids(FTS_TEXT, " AND ".join(substrings))})
        if units:
            condition &= Q(**{f"{field}__in": fts_ids(FTS_GRAMS, " AND ".join(units))})
        return condition

    def _all(self, terms, choices=()) -> Q:
        scans = [_has("text", t.text) for t in terms if t.kind is Kind.SCAN]
        if not scans:
            return self._indexed(terms, "pk", choices)
        # Terms without an index: checked in the documents the indexed terms leave.
        return Q(pk__in=_doc_ids(self._indexed(terms, "note_id", choices), *scans))

    def _one_of(self, group) -> Q:
        """A group of terms of several kinds: one look-up per index, and each term no index
        holds on its own."""
        conditions = []
        for kinds, table in (({Kind.SUBSTRING}, FTS_TEXT), (_INDEXED_UNITS, FTS_GRAMS)):
            same = [fts_string(term.text) for term in group if term.kind in kinds]
            if same:
                conditions.append(Q(pk__in=fts_ids(table, " OR ".join(same))))
        scans = [term for term in group if term.kind is Kind.SCAN]
        return _any(conditions + [self._all([term]) for term in scans])

    def match(self, groups):
        merged, apart = [], []
        for group in _choices(groups):
            one_index = _kinds_of(group, {Kind.SUBSTRING}) or _kinds_of(group, _INDEXED_UNITS)
            (merged if one_index else apart).append(group)
        condition = self._all(_plain_terms(groups), merged)
        for group in apart:
            condition &= self._one_of(group)
        return condition

    def in_field(self, field, term):
        if term.kind is Kind.SUBSTRING:
            return fts_ids(FTS_HEAD, f"{field} : {fts_string(term.text)}")
        if term.kind in _INDEXED_UNITS:
            return fts_ids(FTS_GRAMS, f"{_GRAMS_OF[field]} : {fts_string(term.text)}")
        return _doc_ids(_has(field, term.text))

    def in_field_any(self, field, terms):
        # One look-up per index: the substrings in the title or tags, the short units in
        # their n-gram column.
        conditions = []
        for kinds, table, column in (
            ({Kind.SUBSTRING}, FTS_HEAD, field),
            (_INDEXED_UNITS, FTS_GRAMS, _GRAMS_OF[field]),
        ):
            same = [fts_string(term.text) for term in terms if term.kind in kinds]
            if same:
                conditions.append(Q(pk__in=fts_ids(table, f"{column} : ({' OR '.join(same)})")))
        scans = [term for term in terms if term.kind is Kind.SCAN]
        conditions += [Q(pk__in=self.in_field(field, term)) for term in scans]
        return _any(conditions)


@cache
def _units_field():
    # Imported when first needed: django.contrib.postgres loads psycopg, ~60 ms of every start
    # of a process (manage.py, a worker) on a site that does not use PostgreSQL.
    from django.contrib.postgres.fields import ArrayField

    return ArrayField(TextField())


class _Units(Func):
    """A document's ``grams`` as an array, through the function migration 0021's GIN index holds
    (declared costly, so the planner reads the index rather than split every document)."""

    function = "biji_search_units"


def _units_have(units) -> Q:
    units_of = _Units("grams", output_field=_units_field())
    return Q(_units_field().get_lookup("contains")(units_of, list(units)))


class PostgreSQLBackend(SearchBackend):
    vendor = "postgresql"

    @staticmethod
    def has(term) -> Q:
        """A condition on index rows: the row has ``term``, read from its text and n-grams."""
        if term.kind is Kind.SUBSTRING:
            return Q(text__contains=term.text)
        if term.kind in _INDEXED_UNITS:
            return Q(grams__contains=f" {term.text} ")
        units = [Q(grams__contains=f" {unit} ") for unit in cjk_units(term.text)]
        return reduce(operator.and_, units, Q()) & _has("text", term.text)

    @staticmethod
    def _by_units(terms) -> Q:
        """A condition on notes: the note has one of ``terms`` (each one or two Chinese
        characters or a short word), answered by the units' index alone."""
        return Q(pk__in=_doc_ids(_any(_units_have([term.text]) for term in terms)))

    def match(self, groups):
        # A unit (one or two Chinese characters, a short word) is looked up on its own, in the
        # units' index; the terms that need the text, in one pass over the documents. Inside
        # that pass the units' function would run row by row (docs/performance.md, "Search on
        # PostgreSQL").
        conditions, in_one_pass = [], []
        for term in _plain_terms(groups):
            if term.kind in _INDEXED_UNITS:
                conditions.append(self._by_units([term]))
            else:
                in_one_pass.append(self.has(term))
        for group in _choices(groups):
            units = [term for term in group if term.kind in _INDEXED_UNITS]
            others = [term for term in group if term.kind not in _INDEXED_UNITS]
            if not units:
                in_one_pass.append(_any(map(self.has, others)))
                continue
            either = [self._by_units(units)]
            if others:
                either.append(Q(pk__in=_doc_ids(_any(map(self.has, others)))))
            conditions.append(_any(either))
        if in_one_pass:
            conditions.append(Q(pk__in=_doc_ids(*in_one_pass)))
        return reduce(operator.and_, conditions)

    @staticmethod
    def indexed(term) -> Q:
        """:meth:`has` as the GIN indexes hold it: a unit in the units' index (migration
        0021), a substring in the text's trigrams; for terms no index holds, their Chinese
        units narrow the documents whose text is then read."""
        if term.kind in _INDEXED_UNITS:
            return _units_have([term.text])
        if term.kind is Kind.SUBSTRING:
            return Q(text__contains=term.text)
        units = cjk_units(term.text)
        return (_units_have(units) if units else Q()) & _has("text", term.text)

    @staticmethod
    def has_in(field, term) -> Q:
        """A condition on index rows: ``field`` ("title" or "tags") has ``term``."""
        if term.kind in _INDEXED_UNITS:
            return Q(**{f"{_GRAMS_OF[field]}__contains": f" {term.text} "})
        return Q(**{f"{field}__contains": term.text})

    def in_field(self, field, term):
        return _doc_ids(self.has_in(field, term))

    def in_field_any(self, field, terms):
        return Q(pk__in=_doc_ids(_any(self.has_in(field, term) for term in terms)))


_BACKENDS = {backend.vendor: backend for backend in (SQLiteBackend(), PostgreSQLBackend())}


def backend_for(connection) -> SearchBackend:
    try:
        return _BACKENDS[connection.vendor]
    except KeyError:
        raise NotSupportedError(
            f"biji's search supports SQLite and PostgreSQL, not {connection.vendor}."
        ) from None
