"""Ranked results on PostgreSQL without sorting every match.

A common term matches tens of thousands of notes on a large blog; the general plan finds them
all through the GIN indexes, re-checks each against its text, scores and sorts them, to list
the best thousand. Here a query is read in rank order instead, in one statement of lists, one
per score a note can have (:func:`tiers`: for one term, its title, then its tags, then the
rest), each newest first by the documents' order key (:mod:`blog.search.order`, migration
0024's B-tree) and cut at ``LISTED`` + 1; a list is read only while the lists before it leave
room (a one-time filter). A score that needs a term in a title or tags is read from the
documents those indexes find.

The last list, every term elsewhere, is where a common term's matches are. The planner cannot
tell a common substring from a rare one (a document's text is too wide for its statistics), so
the plan is chosen as it goes: the newest :data:`FIRST_WALK` documents are walked and each
checked; if one in :data:`WALK_RATE` matched, the next :data:`SECOND_WALK` are walked too; what
is left comes from the GIN indexes, whose matches are then few. Every part is bounded by its
walk or by the terms' rarity.

Queries of more than :data:`MOST_GROUPS` groups and the setting that shows one language only
take the general plan (:mod:`blog.search.query`). docs/performance.md has the figures.

May import: models, the search package.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import cached_property, reduce
from itertools import product

from django.db import connections
from django.db.models import Q
from django.utils import timezone

from blog.models.search_document import SearchDocument
from blog.search import query as general
from blog.search.backends import (
    BODY_WEIGHT,
    TAG_WEIGHT,
    TITLE_WEIGHT,
    PostgreSQLBackend,
    scored_groups,
)
from blog.search.keys import KeyList
from blog.search.order import FIRST_PUBLISHED, last_key_at

FIRST_WALK, SECOND_WALK, WALK_RATE = 1_000, 10_000, 10
# Queries of more groups take the general plan: a note's score has 3 ** groups ways to be made.
MOST_GROUPS = 3
_TABLE = SearchDocument._meta.db_table
_BACKEND = PostgreSQLBackend


def _either(conditions) -> Q:
    return reduce(operator.or_, conditions)


@dataclass
class _Statement:
    """The lists of one statement, as common table expressions; every constant in the SQL is an
    integer computed here or a name, every term a parameter."""

    shown: list
    ctes: list = field(default_factory=list)
    params: list = field(default_factory=list)
    lists: list = field(default_factory=list)

    def add_list(self, name, where, params, published=None, source=_TABLE):
        """The list ``name``: documents of ``source`` meeting every condition of ``where``,
        newest first, ``LISTED`` + 1 at most, read only while the lists before leave room."""
        counts = [f"(SELECT count(*) FROM {before})" for before in self.lists]  # noqa: S608 (names)
        room = " + ".join(counts) or "0"
        conditions = [*where, published or self.shown[0], *self.shown[1:]]
        conditions.append(f"{room} <= {general.LISTED}")
        self.ctes.append(
            f"{name} AS MATERIALIZED (SELECT order_key FROM {source}"  # noqa: S608 (see the class)
            f" WHERE {' AND '.join(conditions)}"
            f" ORDER BY order_key DESC LIMIT {general.LISTED + 1})"
        )
        self.params += params
        self.lists.append(name)

    def sql(self):
        ranked = " UNION ALL ".join(
            f"SELECT order_key, {place} AS place FROM {name}"  # noqa: S608 (see the class)
            for place, name in enumerate(self.lists)
        )
        return (
            f"WITH {', '.join(self.ctes)} SELECT order_key FROM ({ranked}) AS ranked"  # noqa: S608 (see the class)
            f" ORDER BY place, order_key DESC LIMIT {general.LISTED + 1}"
        )


def _all(parts):
    """(SQL, parameters) of every condition in ``parts`` ((SQL, parameters) each)."""
    return " AND ".join(f"({sql})" for sql, _ in parts), [p for _, more in parts for p in more]


def _any(parts):
    return " OR ".join(f"({sql})" for sql, _ in parts), [p for _, more in parts for p in more]


def _not(part):
    return f"NOT ({part[0]})", part[1]


def tiers(groups: int) -> list[list[tuple]]:
    """Each score a note can have, best first, as the places that give it: one place per group
    ("title", "tags" or "rest"), scored as the general plan scores them."""
    weights = {"title": TITLE_WEIGHT, "tags": TAG_WEIGHT, "rest": BODY_WEIGHT}
    scores = {}
    for places in product(weights, repeat=groups):
        scores.setdefault(sum(weights[place] for place in places), []).append(places)
    return [scores[score] for score in sorted(scores, reverse=True)]


@dataclass
class NewestFirst(KeyList):
    """The published, shown notes matching every one of ``groups``, best first, as
    ``Paginator`` reads a list (the module docstring has the plan)."""

    groups: list
    hidden: frozenset
    using: str = "default"

    def _where(self, condition: Q):
        """SQL and parameters of ``condition`` on the documents' table."""
        query = SearchDocument.objects.using(self.using).filter(condition).query
        compiler = query.get_compiler(self.using)
        sql, params = query.where.as_sql(compiler, compiler.connection)
        return sql, list(params)

    def _newest(self, count, skip=0):
        """The key of the ``count``-th newest published document after ``skip``: SQL."""
        return (
            f"(SELECT order_key FROM {_TABLE} WHERE {self._published}"  # noqa: S608 (integers)
            f" ORDER BY order_key DESC OFFSET {skip + count - 1} LIMIT 1)"
        )

    @cached_property
    def _published(self):
        return f"order_key BETWEEN {FIRST_PUBLISHED} AND {last_key_at(timezone.now())}"

    def _walked(self, skip, count):
        """The ``count`` newest published documents after ``skip``, as a table: SQL."""
        return (
            f"(SELECT * FROM {_TABLE} WHERE {self._published} ORDER BY order_key DESC"  # noqa: S608 (integers)
            f" OFFSET {skip} LIMIT {count}) AS {_TABLE}"
        )

    @cached_property
    def _places(self):
        """Per group, {place: (SQL, parameters)}: in its title, in its tags (not its title),
        and elsewhere, "rest" as read row by row and "indexed" as its index holds it."""
        places = []
        for group in self.groups:
            title = self._where(_either(_BACKEND.has_in("title", term) for term in group))
            tags = self._where(_either(_BACKEND.has_in("tags", term) for term in group))
            head = [_not(title), _not(tags)]
            read = self._where(_either(_BACKEND.has(term) for term in group))
            indexed = self._where(_either(_BACKEND.indexed(term) for term in group))
            places.append({
                "title": title, "tags": _all([tags, _not(title)]),
                "rest": _all([read, *head]), "indexed": _all([indexed, *head]),
            })  # fmt: skip
        return places

    def _tier(self, statement, number, assignments):
        """A tier where some group is in a title or tags: read from those documents alone
        (the subquery, fenced by ``OFFSET 0``, keeps the planner from starting at the text's
        index, whose estimates it cannot trust)."""
        head = _any([
            _all([self._places[n][place] for n, place in enumerate(places) if place != "rest"])
            for places in assignments
        ])  # fmt: skip
        full = _any([
            _all([self._places[n][place] for n, place in enumerate(places)])
            for places in assignments
        ])  # fmt: skip
        source = (
            f"(SELECT * FROM {_TABLE} WHERE {head[0]} AND {self._published} OFFSET 0)"  # noqa: S608 (see _Statement)
            f" AS {_TABLE}"
        )
        statement.params += head[1]
        statement.add_list(f"tier{number}", [full[0]], full[1], source=source)

    @cached_property
    def _keys(self):
        statement = _Statement(shown=[self._published])
        if self.hidden:
            # Once, as a hashed list: an array in each list's conditions cost the planner a
            # look-up per id and list (~30 ms for 2,000 ids).
            statement.ctes.append("hidden AS MATERIALIZED (SELECT unnest(%s::bigint[]) AS id)")
            statement.params.append(sorted(self.hidden))
            statement.shown.append("note_id NOT IN (SELECT id FROM hidden)")
        *upper, _bottom = tiers(len(self.groups))
        for number, assignments in enumerate(upper):
            self._tier(statement, number, assignments)
        # The tier where every group is elsewhere: walked, then from the indexes.
        rest = _all([places["rest"] for places in self._places])
        indexed = _all([places["indexed"] for places in self._places])
        statement.add_list("walked", [rest[0]], rest[1], source=self._walked(0, FIRST_WALK))
        common = f"(SELECT count(*) FROM walked) * {WALK_RATE} >= {FIRST_WALK}"  # noqa: S608
        statement.add_list(
            "walked_on", [rest[0], common], rest[1], source=self._walked(FIRST_WALK, SECOND_WALK)
        )
        # Below what was walked (an end past the oldest document: nothing is left), filtered by
        # key ("+ 0": the B-tree's own expression would tempt the planner to walk it).
        end = (
            f"CASE WHEN {common} THEN {self._newest(SECOND_WALK, FIRST_WALK)}"
            f" ELSE {self._newest(FIRST_WALK)} END"
        )
        bottom = FIRST_PUBLISHED
        below = f"order_key + 0 BETWEEN {bottom} AND COALESCE({end}, {bottom}) - 1"
        statement.add_list("found", [indexed[0]], indexed[1], below)
        with connections[self.using].cursor() as cursor:
            cursor.execute(statement.sql(), statement.params)
            return [key for (key,) in cursor.fetchall()]


def newest_first(query, hidden, using="default"):
    """A :class:`NewestFirst` for a ``query`` of at most :data:`MOST_GROUPS` groups, or None."""
    groups = scored_groups(query.groups)
    return NewestFirst(groups, hidden, using) if len(groups) <= MOST_GROUPS else None
