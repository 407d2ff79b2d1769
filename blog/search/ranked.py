"""Ranked results on SQLite without visiting every match.

On a large blog a common term matches thousands of notes (a frequent Chinese character is in
half of them), and a plan that reads each match, to check it is published, score it and sort
it, costs tens of milliseconds whatever index found them. Here no note's row is read: the FTS5
tables' rowid is each note's order key (:mod:`blog.search.order`), so

- "published by now" is a range of rowids, and the notes a translated pair hides in an
  interface are a short list (:func:`hidden_by_pairs`, kept per content state by the view);
- a query of one term (or one glossary term's forms) ranks the notes with it in their title,
  then those with it in their tags, then the rest, each list read newest first from FTS5's
  match lists and stopped after ``LISTED`` (:mod:`blog.search.query`): a search matching
  more says so;
- a query of several terms is one statement over the match lists' rowids: every match is
  scored (FTS5 cannot intersect its tables as it walks them), but no note's row is read.

Terms no index holds (``Kind.SCAN``) and the setting that shows one language only take the
general plan (:mod:`blog.search.query`); PostgreSQL has a plan of its own
(:mod:`blog.search.newest_first`), :func:`ranked` chooses. docs/performance.md has the figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

from django.db import connections
from django.utils import timezone

from blog.models import Note
from blog.models.notes import Status
from blog.search import query as general
from blog.search.backends import BODY_WEIGHT, TAG_WEIGHT, TITLE_WEIGHT, scored_groups
from blog.search.keys import KeyList
from blog.search.newest_first import newest_first
from blog.search.order import FIRST_PUBLISHED, ID_MASK, last_key_at
from blog.search.sql import FTS_GRAMS, FTS_HEAD, FTS_TEXT, fts_string
from blog.search.text import Kind

# Where a kind of term is matched anywhere in a note, and in its title and its tags: a
# table and its column filters (FTS5's "column : (...)").
_ANYWHERE = {Kind.SUBSTRING: FTS_TEXT, Kind.CJK: FTS_GRAMS, Kind.WORD: FTS_GRAMS}
_IN_TITLE = {Kind.SUBSTRING: (FTS_HEAD, "title"), Kind.CJK: (FTS_GRAMS, "title_grams")}
_IN_TITLE[Kind.WORD] = _IN_TITLE[Kind.CJK]
_IN_TAGS = {Kind.SUBSTRING: (FTS_HEAD, "tags"), Kind.CJK: (FTS_GRAMS, "tag_grams")}
_IN_TAGS[Kind.WORD] = _IN_TAGS[Kind.CJK]


def hidden_by_pairs(using="default") -> dict[str, frozenset[int]]:
    """{interface language: ids of the notes its lists leave out}: a note whose translation is
    published in that language is shown as its translation (``NoteQuerySet.in_interface``).
    One query over the links alone."""
    now = timezone.now()
    links = Note.objects.using(using).filter(translation__isnull=False)
    rows = links.values_list(
        "pk", "language", "status", "published_at",
        "translation_id", "translation__language", "translation__status",
        "translation__published_at",
    )  # fmt: skip
    hidden = {}
    for pk, language, status, at, other, other_language, other_status, other_at in rows:
        for shown_language, shown_status, shown_at, other_side, other_side_language in (
            (language, status, at, other, other_language),
            (other_language, other_status, other_at, pk, language),
        ):
            published = shown_status == Status.PUBLISHED and shown_at and shown_at <= now
            if published and other_side_language != shown_language:
                hidden.setdefault(shown_language, set()).add(other_side)
    return {language: frozenset(ids) for language, ids in hidden.items()}


def _groups(groups):
    """The query's groups as both plans score them, or None when a term has no index to stream
    from."""
    scored = scored_groups(groups)
    if any(term.kind not in _ANYWHERE for group in scored for term in group):
        return None
    return scored


def _by_table(group, places):
    """{table: FTS5 expression} finding one of ``group``'s terms in ``places`` (a kind's table,
    or a kind's (table, column))."""
    found = {}
    for term in group:
        place = places[term.kind]
        table, column = place if isinstance(place, tuple) else (place, None)
        found.setdefault(table, (column, []))[1].append(fts_string(term.text))
    expressions = {}
    for table, (column, strings) in found.items():
        either = f"({' OR '.join(strings)})"
        expressions[table] = f"{column} : {either}" if column else either
    return expressions


@dataclass
class Ranked(KeyList):
    """The published, shown notes matching ``group``, best first, as Django's ``Paginator``
    reads a list: ``count()`` (at most ``LISTED``) and slices of note ids, from one query of
    the title, tag and other lists (two when the group's terms live in two tables)."""

    group: tuple
    hidden: frozenset
    using: str = "default"

    def __post_init__(self):
        self.low, self.high = FIRST_PUBLISHED, last_key_at(timezone.now())
        self._hidden_ids = json.dumps(sorted(self.hidden))

    def _match(self, table, expression):
        """SQL and parameters: the rowids (order keys) of ``table`` matching ``expression``,
        published by now, none hidden."""
        sql = (
            f"SELECT rowid FROM {table} WHERE {table} MATCH %s AND rowid BETWEEN %s AND %s"  # noqa: S608 (a constant)
            f" AND (rowid & {ID_MASK}) NOT IN (SELECT value FROM json_each(%s))"
        )
        return sql, [expression, self.low, self.high, self._hidden_ids]

    def _fetch(self, sql, params):
        with connections[self.using].cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _tail_sql(self):
        """SQL and parameters: the group's matches outside its title and tag lists, newest
        first, ``LISTED`` + 1 at most from each table holding its terms (FTS5 walks a match
        list and stops there)."""
        heads = {}  # head table: its FTS5 expression for "in the title or the tags"
        for places in (_IN_TITLE, _IN_TAGS):
            for table, expression in _by_table(self.group, places).items():
                heads[table] = f"{heads[table]} OR {expression}" if table in heads else expression
        parts, params = [], []
        for table, expression in _by_table(self.group, _ANYWHERE).items():
            sql, more = self._match(table, expression)
            for head, either in heads.items():
                if head == table:  # title and tag units are columns of the same table
                    more[0] = f"{more[0]} NOT ({either})"
                else:
                    sql += f" AND rowid NOT IN (SELECT rowid FROM {head} WHERE {head} MATCH %s)"  # noqa: S608 (a constant)
                    more.append(either)
            parts.append(self._newest(sql, "tail"))
            params += more
        return parts, params

    def _newest(self, sql, label):
        """``sql`` (rowids) labelled, newest first and ``LISTED`` + 1 at most: FTS5 walks its
        match list from the newest end and stops there."""
        sql = sql.replace("SELECT rowid", f"SELECT rowid, '{label}'", 1)
        return f"SELECT * FROM ({sql} ORDER BY rowid DESC LIMIT {general.LISTED + 1})"  # noqa: S608 (constants)

    @cached_property
    def _rows(self):
        """(key, "title" | "tags" | "tail") rows, the newest ``LISTED`` + 1 of each list per
        table, from FTS5's match lists ("tags" without the same table's titles). When one
        table holds each list, the lists are disjoint and in rank order, and the one
        statement stops once ``LISTED`` + 1 rows are out: titles that fill the list leave
        the other lists unread."""
        titles = _by_table(self.group, _IN_TITLE)
        parts, params = [], []
        for table, expression in titles.items():
            sql, more = self._match(table, expression)
            parts.append(self._newest(sql, "title"))
            params += more
        for table, expression in _by_table(self.group, _IN_TAGS).items():
            sql, more = self._match(table, f"({expression}) NOT ({titles[table]})")
            parts.append(self._newest(sql, "tags"))
            params += more
        if self._in_order:
            tail, more = self._tail_sql()
            sql = " UNION ALL ".join(parts + tail) + f" LIMIT {general.LISTED + 1}"
            return self._fetch(sql, params + more)
        # Several tables: their lists are merged here, and the tail read only if the titles
        # and tags leave room for it (a second query, the rarer case).
        rows = self._fetch(" UNION ALL ".join(parts), params)
        if len({key for key, _place in rows}) <= general.LISTED:
            tail, more = self._tail_sql()
            rows += self._fetch(" UNION ALL ".join(tail), more)
        return rows

    @property
    def _in_order(self):
        return len(_by_table(self.group, _ANYWHERE)) == 1

    @cached_property
    def _lists(self):
        lists = {"title": set(), "tags": set(), "tail": set()}
        for key, place in self._rows:
            lists[place].add(key)
        return lists

    @cached_property
    def _head(self):
        """The notes with the group in their title, then those with it in their tags, each
        newest first (each also matches: title and tags are in the text). A title list cut at
        ``LISTED`` + 1 fills the listed results alone, so the tags' are checked against it
        only when it is whole."""
        room, titles, tags = general.LISTED + 1, self._lists["title"], self._lists["tags"]
        ranked = sorted(titles, reverse=True)[:room]
        return ranked + sorted(tags - titles, reverse=True)[: room - len(ranked)]

    @property
    def _tail(self):
        return sorted(self._lists["tail"], reverse=True)[: general.LISTED + 1]

    @cached_property
    def _keys(self):
        if self._in_order:
            return [key for key, _place in self._rows]
        return self._head + self._tail


@dataclass
class RankedTogether(KeyList):
    """The published, shown notes matching every one of several ``groups``, best first, in one
    statement over FTS5 rowids alone: the first group's match lists, kept where each other
    group's lists hold the key, scored by each group's title and tag lists (the general plan's
    weights), sorted and cut at ``LISTED`` + 1. Every match is scored, but no note's row read."""

    groups: list
    hidden: frozenset
    using: str = "default"

    def _either(self, group, places):
        """SQL and parameters: the rowids of ``group``'s match lists in ``places``."""
        parts, params = [], []
        for table, expression in _by_table(group, places).items():
            parts.append(f"SELECT rowid FROM {table} WHERE {table} MATCH %s")  # noqa: S608 (a constant)
            params.append(expression)
        return " UNION ".join(parts), params

    @cached_property
    def _keys(self):
        # Each list a materialized CTE: inside IN, SQLite would otherwise seek an FTS5 match
        # list once per candidate (seconds for a trigram phrase).
        lists, params, names = [], [], {}
        for number, group in enumerate(self.groups):
            for place, where in (("any", _ANYWHERE), ("title", _IN_TITLE), ("tags", _IN_TAGS)):
                sql, more = self._either(group, where)
                names[number, place] = name = f"{place}{number}"
                lists.append(f"{name}(key) AS MATERIALIZED ({sql})")
                params += more
        # The SQL below is made of constants and these names only: every term is a parameter.
        conditions = [
            f"key IN (SELECT key FROM {names[n, 'any']})"  # noqa: S608
            for n in range(1, len(self.groups))
        ]
        scores = [
            f"(CASE WHEN key IN (SELECT key FROM {names[n, 'title']}) THEN {TITLE_WEIGHT}"  # noqa: S608
            f" WHEN key IN (SELECT key FROM {names[n, 'tags']}) THEN {TAG_WEIGHT}"
            f" ELSE {BODY_WEIGHT} END)"
            for n in range(len(self.groups))
        ]
        sql = (
            f"WITH {', '.join(lists)} SELECT key FROM {names[0, 'any']}"  # noqa: S608 (constants)
            f" WHERE key BETWEEN %s AND %s AND (key & {ID_MASK}) NOT IN"
            f" (SELECT value FROM json_each(%s)) {''.join(' AND ' + c for c in conditions)}"
            f" ORDER BY {' + '.join(scores)} DESC, key DESC LIMIT %s"
        )
        params += [FIRST_PUBLISHED, last_key_at(timezone.now()), json.dumps(sorted(self.hidden))]
        with connections[self.using].cursor() as cursor:
            cursor.execute(sql, [*params, general.LISTED + 1])
            return [key for (key,) in cursor.fetchall()]


def ranked(query, hidden, using="default"):
    """``query``'s results read from the index in rank order: a :class:`Ranked` or
    :class:`RankedTogether` on SQLite, a :class:`~blog.search.newest_first.NewestFirst` on
    PostgreSQL; None when the general plan must answer it."""
    vendor = connections[using].vendor
    if not query.terms:
        return None
    if vendor == "postgresql":
        return newest_first(query, hidden, using)
    if vendor != "sqlite":
        return None
    groups = _groups(query.groups)
    if groups is None:
        return None
    if len(groups) == 1:
        return Ranked(groups[0], hidden, using)
    return RankedTogether(groups, hidden, using)
