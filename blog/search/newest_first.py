"""Ranked results on PostgreSQL without sorting every match.

A common term matches tens of thousands of notes on a large blog; the general plan finds them
all through the GIN indexes, re-checks each against its text, scores and sorts them, to list
the best thousand. Here a query of one term (or one glossary term's forms) is read in rank
order instead, in one statement of lists: the notes with it in their title, then those with it
in their tags, then the rest, each newest first by the documents' order key
(:mod:`blog.search.order`, migration 0024's B-tree) and cut at ``LISTED`` + 1; a list is read
only while the lists before it leave room (a one-time filter).

The rest is where a common term's matches are. The planner cannot tell a common substring from
a rare one (a document's text is too wide for its statistics), so the plan is chosen as it
goes: the newest :data:`FIRST_WALK` documents are walked and each checked; if one in
:data:`WALK_RATE` held the term, the next :data:`SECOND_WALK` are walked too; what is left
comes from the GIN indexes, whose matches are then few. Every part is bounded by its walk or
by the term's rarity.

Several groups (every match must be scored) and the setting that shows one language only take
the general plan (:mod:`blog.search.query`). docs/performance.md has the figures.

May import: models, the search package.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import cached_property, reduce

from django.db import connections
from django.db.models import Q
from django.utils import timezone

from blog.models.search_document import SearchDocument
from blog.search import query as general
from blog.search.backends import PostgreSQLBackend, scored_groups
from blog.search.keys import KeyList
from blog.search.order import FIRST_PUBLISHED, last_key_at

FIRST_WALK, SECOND_WALK, WALK_RATE = 1_000, 10_000, 10
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


@dataclass
class NewestFirst(KeyList):
    """The published, shown notes matching ``group``, best first, as ``Paginator`` reads a
    list (the module docstring has the plan)."""

    group: tuple
    hidden: frozenset
    using: str = "default"

    def _where(self, condition: Q):
        """SQL and parameters of ``condition`` on the documents' table."""
        query = SearchDocument.objects.using(self.using).filter(condition).query
        compiler = query.get_compiler(self.using)
        return query.where.as_sql(compiler, compiler.connection)

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
    def _keys(self):
        title = self._where(_either(_BACKEND.has_in("title", term) for term in self.group))
        tags = self._where(_either(_BACKEND.has_in("tags", term) for term in self.group))
        read = self._where(_either(_BACKEND.has(term) for term in self.group))
        indexed = self._where(_either(_BACKEND.indexed(term) for term in self.group))
        statement = _Statement(shown=[self._published])
        if self.hidden:
            # Once, as a hashed list: an array in each list's conditions cost the planner a
            # look-up per id and list (~30 ms for 2,000 ids).
            statement.ctes.append("hidden AS MATERIALIZED (SELECT unnest(%s::bigint[]) AS id)")
            statement.params.append(sorted(self.hidden))
            statement.shown.append("note_id NOT IN (SELECT id FROM hidden)")
        statement.add_list("title", [title[0]], title[1])
        statement.add_list("tags", [tags[0], f"NOT ({title[0]})"], tags[1] + title[1])
        rest = [f"NOT ({title[0]})", f"NOT ({tags[0]})"]
        rest_params = title[1] + tags[1]
        statement.add_list(
            "walked", [read[0], *rest], read[1] + rest_params, source=self._walked(0, FIRST_WALK)
        )
        common = f"(SELECT count(*) FROM walked) * {WALK_RATE} >= {FIRST_WALK}"  # noqa: S608
        statement.add_list(
            "walked_on", [read[0], *rest, common], read[1] + rest_params,
            source=self._walked(FIRST_WALK, SECOND_WALK),
        )  # fmt: skip
        # Below what was walked (an end past the oldest document: nothing is left), filtered by
        # key ("+ 0": the B-tree's own expression would tempt the planner to walk it).
        end = (
            f"CASE WHEN {common} THEN {self._newest(SECOND_WALK, FIRST_WALK)}"
            f" ELSE {self._newest(FIRST_WALK)} END"
        )
        bottom = FIRST_PUBLISHED
        below = f"order_key + 0 BETWEEN {bottom} AND COALESCE({end}, {bottom}) - 1"
        statement.add_list("found", [indexed[0], *rest], indexed[1] + rest_params, below)
        with connections[self.using].cursor() as cursor:
            cursor.execute(statement.sql(), statement.params)
            return [key for (key,) in cursor.fetchall()]


def newest_first(query, hidden, using="default"):
    """A :class:`NewestFirst` for a ``query`` of one group, or None."""
    groups = scored_groups(query.groups)
    return NewestFirst(groups[0], hidden, using) if len(groups) == 1 else None
