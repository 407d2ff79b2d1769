"""Background work asked for by the changes of one transaction, queued once, after it commits (none
if it rolls back). A database error while queuing is logged and never undoes the change."""

import logging
from collections import defaultdict

from asgiref.local import Local
from django.db import DatabaseError, transaction

logger = logging.getLogger(__name__)

_pending = Local()  # per thread/task: {(kind, alias): the _Batch of the open transaction}


class _Batch:
    """What the changes of one transaction asked for, by name; sent once."""

    runs_once = True  # later calls do nothing: :func:`compact` may drop their registrations

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
    """Add ``items`` (name → values) to the batch of ``kind`` in the transaction open on ``using``;
    ``send(batch)`` queues the work once it commits."""
    pending = getattr(_pending, "batches", None)
    if pending is None:
        pending = _pending.batches = {}
    batch = pending.get((kind, using))
    if batch is None or batch.done:
        batch = pending[(kind, using)] = _Batch(send, failure, using)
    for name, values in items.items():
        batch.items[name].update(values)
    transaction.on_commit(batch, using=using)


def compact(using):
    """Drop the registrations of a run-once callback (``runs_once``) that repeat an earlier one
    no rollback can now tell apart: the same callback, registered inside the same savepoints
    still open. A long job in one transaction (a restore renders every note, each save
    registering its changes) calls it between batches, so the list stays one entry per
    callback instead of growing by a few a row."""
    connection = transaction.get_connection(using)
    live = set(connection.savepoint_ids)
    seen, kept = set(), []
    for entry in connection.run_on_commit:
        sids, func, robust = entry
        if getattr(func, "runs_once", False):
            key = (id(func), frozenset(sids & live), robust)
            if key in seen:
                continue
            seen.add(key)
        kept.append(entry)
    connection.run_on_commit[:] = kept
