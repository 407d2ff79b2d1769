"""Waiting out a database that refuses the worker (locked, restarting, gone): connections closed,
then a pause from 1 s doubling to 30 s. A task's own errors are not outages (:mod:`.retrying`)."""

import logging
import time

from django.db import Error, connections

logger = logging.getLogger(__name__)

FIRST_WAIT = 1.0
LONGEST_WAIT = 30.0

# Every error a database driver raises through Django: OperationalError (locked, restarting,
# connection lost), InterfaceError (a connection already closed), and their kin.
DATABASE_ERRORS = (Error,)


def close_connections():
    """Close this thread's database connections, whatever state they are in."""
    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except Error:
            pass  # broken beyond closing: Django forgets it all the same, and connects anew


class Outage:
    """The database's failures in a row, and how long to wait before the next try."""

    def __init__(self, what, retry_note=None):
        self.what = what  # who is waiting, for the log
        self.retry_note = retry_note or (
            f"trying again in {FIRST_WAIT:g} s, then less and less often (every "
            f"{LONGEST_WAIT:g} s at most) until it answers"
        )
        self.failures = 0
        self.since = None

    sleep = staticmethod(time.sleep)

    def wait(self, error):
        """Log ``error`` (the first of a streak), close the connections, and sleep."""
        delay = self.next_delay(error)
        close_connections()
        self.sleep(delay)

    def next_delay(self, error):
        if not self.failures:
            self.since = time.monotonic()
            first_line = (str(error).strip().splitlines() or [""])[0]
            logger.warning(
                "%s cannot use the database (%s: %s); %s",
                self.what,
                type(error).__name__,
                first_line,
                self.retry_note,
            )
        self.failures += 1
        return min(FIRST_WAIT * 2 ** (self.failures - 1), LONGEST_WAIT)

    def over(self):
        """The database answered: end the streak, if any, saying so."""
        if self.failures:
            logger.warning(
                "%s uses the database again after %d failed tries over %.0f s",
                self.what,
                self.failures,
                time.monotonic() - self.since,
            )
            self.failures, self.since = 0, None
