"""One consistent view of the database while the site keeps writing."""

import contextlib

from django.db import connections, transaction


@contextlib.contextmanager
def read_snapshot(using):
    """Every query inside sees the database as it was at the first one: REPEATABLE READ on
    PostgreSQL; on SQLite a deferred read transaction, which unlike Django's IMMEDIATE stops no
    writer."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with transaction.atomic(using=using):
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        return
    if connection.vendor == "sqlite":
        if not transaction.get_autocommit(using=using):
            yield  # called inside a transaction already: its view is consistent
            return
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
            try:
                yield
            finally:
                cursor.execute("COMMIT")
        return
    with transaction.atomic(using=using):
        yield
