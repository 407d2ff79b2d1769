"""Background work asked for by the changes of one transaction, queued once, after it commits.

A glossary import changes 500 terms, a demo load saves 50 notes: each change says what it
concerns (:func:`once_after_commit`), and the transaction queues one task for all of it when
it commits — none when it rolls back. Every change registers the transaction's one callback
(Django runs a callback once per registration, and drops those of a savepoint rolled back), so
a savepoint rolled back takes only its own registration with it; the first callback to run
sends, the others find the batch done. Outside a transaction, the work is queued at once.

Queuing never undoes the change that asked for it: a database error while queuing is logged
with the ``failure`` text (which says how the work catches up), and the change stands.
"""

import logging
from collections import defaultdict

from asgiref.local import Local
from django.db import DatabaseError, transaction

logger = logging.getLogger(__name__)

_pending = Local()  # per thread/task: {(kind, alias): the _Batch of the open transaction}


class _Batch:
    """What the changes of one transaction asked for, by name; sent once."""

    def __init__(self, send, failure, using):
        self.send, self.failure, self.using = send, failure, using
        self.done = False
        self.items = defaultdict(set)

    def sorted(self, name):
        return sorted(self.items[name])

    def __call__(self):
        if self.done:
            return
        self.done = True
        try:
            self.send(self)
        except DatabaseError:
            logger.exception(self.failure)


def once_after_commit(kind, using, send, failure, **items):
    """Add ``items`` (name → values) to the batch of ``kind`` in the transaction open on
    ``using``; ``send(batch)`` queues the work once the transaction commits (``batch.sorted(name)``
    gives what was gathered under a name)."""
    pending = getattr(_pending, "batches", None)
    if pending is None:
        pending = _pending.batches = {}
    batch = pending.get((kind, using))
    if batch is None or batch.done:
        batch = pending[(kind, using)] = _Batch(send, failure, using)
    for name, values in items.items():
        batch.items[name].update(values)
    transaction.on_commit(batch, using=using)
