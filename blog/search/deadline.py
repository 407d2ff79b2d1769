"""A search's database work held to a time: PostgreSQL cancels a statement past it
(``statement_timeout``, for the search's own transaction only), SQLite interrupts it (a
progress handler that checks the clock). Whatever a query's words, a search ends by then.

The plans keep common searches far below it (docs/performance.md, "Search"); what it bounds
is the query no plan foresaw: several common terms whose matches the indexes cannot
intersect, on a blog larger or a machine slower than the benchmark's.
"""

import time
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, transaction

# How many SQLite virtual-machine instructions pass between two looks at the clock: a few
# hundred microseconds of work.
SQLITE_CHECK_EVERY = 20_000


class SearchTooLong(Exception):
    """The search's statements passed its time and were stopped."""


@contextmanager
def search_deadline(seconds, using=DEFAULT_DB_ALIAS):
    """Within it, a statement still running ``seconds`` after the start raises
    :class:`SearchTooLong`."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with _postgresql_timeout(connection, seconds, using):
            yield
    elif connection.vendor == "sqlite":
        with _sqlite_interrupt(connection, seconds):
            yield
    else:  # another engine: its own server's limits
        yield


@contextmanager
def _postgresql_timeout(connection, seconds, using):
    try:
        # SET LOCAL ends with the transaction: the connection goes back to the pool, or to
        # the next request, without it.
        with transaction.atomic(using=using):
            with connection.cursor() as cursor:
                # 0 would mean no limit: a millisecond at least.
                cursor.execute("SET LOCAL statement_timeout = %s", [max(1, round(seconds * 1000))])
            yield
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) == "57014":  # query_canceled
            raise SearchTooLong() from error
        raise


@contextmanager
def _sqlite_interrupt(connection, seconds):
    connection.ensure_connection()
    raw = connection.connection
    deadline = time.monotonic() + seconds
    raw.set_progress_handler(lambda: time.monotonic() > deadline, SQLITE_CHECK_EVERY)
    try:
        yield
    except OperationalError as error:
        if "interrupted" in str(error):
            raise SearchTooLong() from error
        raise
    finally:
        raw.set_progress_handler(None, 0)
