"""What a search page's query budget counts beside the search itself."""

from django.db import connection


def time_bound():
    """The statements of a search's time bound (blog.search.deadline): on PostgreSQL its
    ``SET LOCAL``, in a savepoint here as a test runs in a transaction."""
    return 3 if connection.vendor == "postgresql" else 0
