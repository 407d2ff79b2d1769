"""The search index in the database: SQL for SQLite and for PostgreSQL.

Both keep what is indexed in one side table, ``blog_search_document``, one row per note
(``note_id`` = the note's id), of folded text built by :func:`blog.search.text.build_document`.
It is not a Django model: it never shows in the admin or in a form, and its schema belongs to
migration ``0002_search_index``. It has no foreign key either, so Django's ``flush`` (which
truncates the tables it knows) keeps working; rows of deleted notes are removed after commit,
and a row without a note could never be shown anyway, as results are notes.

* **SQLite**: FTS5 tables over the side table (external content, kept in step by triggers):
  ``blog_search_fts`` with the *trigram* tokenizer over title, tags and body, for terms of
  three characters or more (any substring, in any script, uses the index);
  ``blog_search_head``, the same over title and tags only, for ranking; and
  ``blog_search_grams`` with ``unicode61`` over the n-gram columns, for the one- and
  two-character terms the trigram tokenizer cannot look up.
* **PostgreSQL**: a pg_trgm GIN index over title, tags and body (``LIKE '%term%'``) and a GIN
  index over the n-gram column as an array (``@> ARRAY['调度']``); smaller ones of both kinds
  over title and tags alone, for ranking.

Ranking is the same on both: for every term 100 if it is in the title, else 10 if it is in a
tag name, else 1 (it is in the body); the sum, then the newest note first. Each "in the title"
is a set of note ids computed once per query (an FTS column filter on SQLite, a scan of the
small title column on PostgreSQL), not a look-up per matching note: a one-character query can
match most notes, and ranking must not cost a row read for each.
"""

from __future__ import annotations

from django.db import NotSupportedError

from .text import Kind, cjk_units

TABLE = "blog_search_document"
TITLE_WEIGHT, TAG_WEIGHT, BODY_WEIGHT = 100, 10, 1

_UPSERT = """
    INSERT INTO blog_search_document
        (note_id, title, tags, title_grams, tag_grams, grams, body)
    VALUES (%s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (note_id) DO UPDATE SET
        title = excluded.title, tags = excluded.tags, title_grams = excluded.title_grams,
        tag_grams = excluded.tag_grams, grams = excluded.grams, body = excluded.body
"""
# SQL below is put together from this module's constants only: what readers type reaches the
# database as bound parameters (and FTS5 strings quoted by _quoted), never as SQL.


def _quoted(text: str) -> str:
    """A term as an FTS5 string: never syntax, whatever it contains."""
    return '"' + text.replace('"', '""') + '"'


def _units(terms) -> list[str]:
    """What the n-gram index must hold for the note to have every term: the one- and
    two-character terms, and the CJK characters of the other short ones ("a调" needs "调")."""
    units = [term.text for term in terms if term.kind in {Kind.CJK, Kind.WORD}]
    for term in terms:
        if term.kind is Kind.SCAN:
            units += [unit for unit in cjk_units(term.text) if unit not in units]
    return units


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class SearchBackend:
    vendor = ""
    position = ""  # the database's instr()/strpos(): position of a substring, 0 if absent
    document = ""  # title, tags and body as one text; a newline keeps terms inside a field

    def write(self, cursor, documents: dict) -> None:
        """Insert or replace the rows for ``{note_id: Document}``."""
        rows = [
            (note_id, d.title, d.tags, d.title_grams, d.tag_grams, d.grams, d.body)
            for note_id, d in documents.items()
        ]
        if rows:
            cursor.executemany(_UPSERT, rows)

    def delete(self, cursor, note_ids) -> None:
        note_ids = list(note_ids)
        if note_ids:
            placeholders = ", ".join(["%s"] * len(note_ids))
            sql = f"DELETE FROM {TABLE} WHERE note_id IN ({placeholders})"  # noqa: S608
            cursor.execute(sql, note_ids)

    def delete_all(self, cursor) -> None:
        cursor.execute(f"DELETE FROM {TABLE}")  # noqa: S608

    def after_rebuild(self, cursor) -> None:
        """Whatever makes a freshly filled index consistent and fast."""

    def match(self, terms) -> tuple[str, list]:
        """A condition on ``blog_note.id``: the note has every term."""
        raise NotImplementedError

    def in_field(self, field: str, term) -> tuple[str, list]:
        """A query for the ids of the notes with ``term`` in ``field`` ("title" or "tags").

        For one- and two-character terms, the field's n-gram column is used: whole units make
        the look-up exact (" 3 " is the word "3", " 调 " the character anywhere).
        """
        raise NotImplementedError

    def score(self, terms) -> tuple[str, list]:
        """An integer expression per note: title above tags above body (module docstring)."""
        cases, params = [], []
        for term in terms:
            title_sql, title_params = self.in_field("title", term)
            tags_sql, tags_params = self.in_field("tags", term)
            cases.append(
                f'CASE WHEN "blog_note"."id" IN ({title_sql}) THEN {TITLE_WEIGHT} '
                f'WHEN "blog_note"."id" IN ({tags_sql}) THEN {TAG_WEIGHT} ELSE {BODY_WEIGHT} END'
            )
            params += title_params + tags_params
        return f"({' + '.join(cases)})", params

    def _scan_conditions(self, terms) -> tuple[list[str], list]:
        scanned = [term.text for term in terms if term.kind is Kind.SCAN]
        return [f"{self.position}({self.document}, %s) > 0" for _ in scanned], scanned


_GRAMS_OF = {"title": "title_grams", "tags": "tag_grams"}
_FTS_IDS = "SELECT rowid FROM blog_search_fts WHERE blog_search_fts MATCH %s"
_HEAD_IDS = "SELECT rowid FROM blog_search_head WHERE blog_search_head MATCH %s"
_GRAMS_IDS = "SELECT rowid FROM blog_search_grams WHERE blog_search_grams MATCH %s"


class SQLiteBackend(SearchBackend):
    vendor = "sqlite"
    position = "instr"
    document = "title || char(10) || tags || char(10) || body"

    def delete_all(self, cursor):
        # The delete trigger removes a row's entries by re-tokenizing its old text, which
        # fails ("malformed") if the FTS index no longer matches the side table. 'rebuild'
        # first re-reads the side table, whatever state the index was left in.
        for sql in self._fts_commands("rebuild"):
            cursor.execute(sql)
        super().delete_all(cursor)

    def after_rebuild(self, cursor):
        # One segment per index instead of one per batch: faster look-ups.
        for sql in self._fts_commands("optimize"):
            cursor.execute(sql)

    @staticmethod
    def _fts_commands(command):
        return [
            f"INSERT INTO {table}({table}) VALUES ('{command}')"  # noqa: S608
            for table in ("blog_search_fts", "blog_search_head", "blog_search_grams")
        ]

    def _index_conditions(self, terms, column):
        conditions, params = [], []
        substrings = [_quoted(t.text) for t in terms if t.kind is Kind.SUBSTRING]
        if substrings:
            conditions.append(f"{column} IN ({_FTS_IDS})")
            params.append(" AND ".join(substrings))
        units = [_quoted(unit) for unit in _units(terms)]
        if units:
            conditions.append(f"{column} IN ({_GRAMS_IDS})")
            params.append(" AND ".join(units))
        return conditions, params

    def match(self, terms):
        scans, scan_params = self._scan_conditions(terms)
        if not scans:
            conditions, params = self._index_conditions(terms, '"blog_note"."id"')
            return " AND ".join(conditions), params
        # Short terms without an index: checked in the side table, on the rows the indexed
        # terms leave (all rows when there are none).
        conditions, params = self._index_conditions(terms, "note_id")
        where = " AND ".join(conditions + scans)
        sql = f'"blog_note"."id" IN (SELECT note_id FROM {TABLE} WHERE {where})'  # noqa: S608
        return sql, params + scan_params

    def in_field(self, field, term):
        if term.kind is Kind.SUBSTRING:
            return _HEAD_IDS, [f"{field} : {_quoted(term.text)}"]
        if term.kind in {Kind.CJK, Kind.WORD}:
            return _GRAMS_IDS, [f"{_GRAMS_OF[field]} : {_quoted(term.text)}"]
        return f"SELECT note_id FROM {TABLE} WHERE instr({field}, %s) > 0", [term.text]  # noqa: S608


class PostgreSQLBackend(SearchBackend):
    vendor = "postgresql"
    position = "strpos"
    # Exactly the expressions of the indexes of migration 0002, or the indexes are not used.
    document = "(title || E'\\n' || tags || E'\\n' || body)"
    units = "blog_search_units({})"

    def after_rebuild(self, cursor):
        cursor.execute(f"ANALYZE {TABLE}")

    def match(self, terms):
        conditions, params = [], []
        for term in terms:
            if term.kind is Kind.SUBSTRING:
                conditions.append(f"{self.document} LIKE %s")
                params.append(_like_pattern(term.text))
        units = _units(terms)
        if units:
            conditions.append(f"{self.units.format('grams')} @> %s::text[]")
            params.append(units)
        scans, scan_params = self._scan_conditions(terms)
        where = " AND ".join(conditions + scans)
        sql = f'"blog_note"."id" IN (SELECT note_id FROM {TABLE} WHERE {where})'  # noqa: S608
        return sql, params + scan_params

    def in_field(self, field, term):
        if term.kind in {Kind.CJK, Kind.WORD}:
            condition, param = f"{self.units.format(_GRAMS_OF[field])} @> %s::text[]", [term.text]
        else:
            condition, param = f"{field} LIKE %s", _like_pattern(term.text)
        return f"SELECT note_id FROM {TABLE} WHERE {condition}", [param]  # noqa: S608


_BACKENDS = {backend.vendor: backend for backend in (SQLiteBackend(), PostgreSQLBackend())}


def backend_for(connection) -> SearchBackend:
    try:
        return _BACKENDS[connection.vendor]
    except KeyError:
        raise NotSupportedError(
            f"biji's search supports SQLite and PostgreSQL, not {connection.vendor}."
        ) from None
