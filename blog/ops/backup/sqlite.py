"""SQLite: a copy of the live database file through SQLite's online backup API."""

import sqlite3

from django.db import connections


def snapshot_file(using, target):
    """Copy the database ``using`` to ``target`` with SQLite's backup API while it serves: one
    consistent database, whatever was written meanwhile."""
    connection = connections[using]
    connection.ensure_connection()
    destination = sqlite3.connect(target)
    try:
        with destination:
            connection.connection.backup(destination, pages=256)
    finally:
        destination.close()
