"""The content state: a counter in one ``ContentVersion`` row, moved after every committed change
a reader could see (once per transaction), with new versions for the parts the changes named;
read once per request in one query (:func:`current`), with a kept page's parts' versions if asked.
"""

import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from asgiref.local import Local
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, IntegrityError, connections, transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from blog.caching import parts as content_parts
from blog.caching import release

logger = logging.getLogger(__name__)

ROW = 1  # the primary key of the one row

_request = Local()  # the memo of the current request, per thread/task

# Sent after the version moved, with ``using`` and the ``names`` of the parts that moved (inside
# the transaction of a bump made in one): an edge purges the pages showing them.
parts_moved = Signal()


@dataclass(frozen=True)
class State:
    version: int
    next_scheduled_at: datetime | None  # the earliest publication still in the future
    changed_at: datetime | None  # when the version last moved
    last_published_at: datetime | None  # the latest publication time already passed

    @property
    def key(self) -> str:
        """Text naming this state in cache keys and ETags (release, version, when it moved, next
        scheduled publication): unlike the counter, never shared by two databases or deploys."""
        changed = int(self.changed_at.timestamp() * 1_000_000) if self.changed_at else 0
        return self._until_next_publication(f"{release.fingerprint()}-{self.version}.{changed:x}")

    @property
    def schedule_key(self) -> str:
        """What every kept page is keyed by besides its parts' versions, so a deploy or a note
        coming due renders every page again."""
        return self._until_next_publication(release.fingerprint())

    def _until_next_publication(self, key):
        if self.next_scheduled_at is None:
            return key
        return f"{key}-{int(self.next_scheduled_at.timestamp())}"

    @property
    def last_modified(self) -> datetime | None:
        """When public content last changed: the last edit or the last publication passed."""
        dates = [d for d in (self.changed_at, self.last_published_at) if d is not None]
        return max(dates, default=None)

    def seconds_until_next_publication(self, now=None) -> float | None:
        """How long a copy made now stays right at most (None: until the version moves)."""
        if self.next_scheduled_at is None:
            return None
        now = now or timezone.now()
        return max(0.0, (self.next_scheduled_at - now).total_seconds())


def current(using=DEFAULT_DB_ALIAS) -> State:
    """The content state now: one query, memoised for the rest of the current request."""
    memo = getattr(_request, "states", None)
    if memo is not None and using in memo:
        return memo[using]
    state, _versions = _read(using)
    if memo is not None:
        memo[using] = state
    return state


# The one query of a cached page or a 304, written once as SQL: the ORM compiled its two
# subqueries on every call, most of what a page-cache hit cost. Both subqueries walk
# blog_note_pub_idx (status, published_at): one row each. tests/test_content_version.py checks
# the table names against the models and the result against the ORM.
STATE_SQL = """
    SELECT version.value,
           (SELECT published_at FROM blog_note
             WHERE status = %s AND published_at > %s ORDER BY published_at ASC LIMIT 1),
           version.changed_at,
           (SELECT published_at FROM blog_note
             WHERE status = %s AND published_at <= %s ORDER BY published_at DESC LIMIT 1),
           {parts}
      FROM blog_contentversion AS version
     WHERE version.id = %s
"""


# The versions of a cached page's parts are read in the same query ({parts} above), as one text
# column ("note:12=8812 notes=771"): checking a kept page stays one query, and the parts and the
# counter come from one snapshot (blog.caching.pages relies on it to never keep a page rendered
# across an edit).
PARTS_SQL = {
    "sqlite": "(SELECT group_concat(name || '=' || version, ' ') FROM blog_partversion "
    "WHERE name IN ({}))",
    "postgresql": "(SELECT string_agg(name || '=' || version::text, ' ') FROM blog_partversion "
    "WHERE name IN ({}))",
}


def current_with_parts(names, using=DEFAULT_DB_ALIAS):
    """The content state and ``{part: version}`` of ``names`` (0: never changed), in one query; the
    state becomes the request's memo."""
    state, versions = _read(using, sorted(names))
    memo = getattr(_request, "states", None)
    if memo is not None:
        memo[using] = state
    return state, versions


def _read(using, names=(), retry=True):
    """The state, and ``{part: version}`` of ``names``, in one query."""
    from blog.models import Status

    connection = connections[using]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    published = str(Status.PUBLISHED)
    column = "NULL"
    if names:
        template = PARTS_SQL.get(connection.vendor, PARTS_SQL["postgresql"])
        column = template.format(", ".join(["%s"] * len(names)))
    with connection.cursor() as cursor:
        cursor.execute(
            STATE_SQL.format(parts=column), [published, now, published, now, *names, ROW]
        )
        row = cursor.fetchone()
    if row is None:  # a database emptied by hand (flush): start counting again
        if not retry:
            return State(0, None, None, None), dict.fromkeys(names, 0)
        _ensure_row(using)
        return _read(using, names, retry=False)
    value, next_at, changed_at, last_at, found = row
    state = State(value, _datetime(next_at), _datetime(changed_at), _datetime(last_at))
    versions = dict.fromkeys(names, 0)
    for pair in (found or "").split():
        name, _, number = pair.rpartition("=")
        versions[name] = int(number)
    return state, versions


def _datetime(value):
    """A database's datetime as Django's ORM would return it (aware with USE_TZ): SQLite's
    driver gives naive datetimes in UTC, or text for a subquery's column."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if settings.USE_TZ and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def _ensure_row(using):
    """The counter's row, and a version of the site's part (named by every page), so two databases
    sharing a cache never share all of a page's parts' versions."""
    from blog.models import ContentVersion, PartVersion

    try:
        with transaction.atomic(using=using):
            ContentVersion.objects.using(using).get_or_create(pk=ROW)
            PartVersion.objects.using(using).get_or_create(
                name=content_parts.SITE, defaults={"version": _new_version()}
            )
    except IntegrityError:  # another process created them meanwhile
        pass


def ensure_row_after_migrate(using=DEFAULT_DB_ALIAS, **kwargs) -> None:
    """``post_migrate`` receiver: the row exists after every ``migrate`` and ``flush``, so reading
    the version stays one query."""
    from blog.models import ContentVersion, PartVersion

    tables = connections[using].introspection.table_names()
    if {ContentVersion._meta.db_table, PartVersion._meta.db_table} <= set(tables):
        _ensure_row(using)


def bump(using=DEFAULT_DB_ALIAS, parts=None) -> None:
    """Move the version now, with new versions for ``parts`` (None: the site's part). Inside a
    transaction, they move when it commits."""
    from blog.models import ContentVersion, PartVersion

    names = sorted(parts) if parts is not None else [content_parts.SITE]
    with transaction.atomic(using=using):
        rows = ContentVersion.objects.using(using).filter(pk=ROW)
        if not rows.update(value=F("value") + 1, changed_at=timezone.now()):
            _ensure_row(using)
            rows.update(value=F("value") + 1, changed_at=timezone.now())
        if names:
            PartVersion.objects.using(using).bulk_create(
                [PartVersion(name=name, version=_new_version()) for name in names],
                update_conflicts=True,
                unique_fields=["name"],
                update_fields=["version"],
            )
        parts_moved.send(sender=ContentVersion, using=using, names=names)
    forget(using)


def _new_version():
    return secrets.randbits(62) + 1  # never 0, the version of a part never changed


class _ScheduledBump:
    """One transaction's after-commit callback, gathering the parts its changes named: the first
    call bumps, later ones do nothing."""

    runs_once = True  # blog.background.after_commit.compact may drop its repeated registrations

    def __init__(self, using):
        self.using = using
        self.done = False
        self.parts = set()

    def __call__(self):
        if self.done:
            return
        self.done = True
        # Like Django's robust callbacks, a failure here never undoes the author's save; it is
        # logged (caches then wait for the next change, or for the scheduled time).
        try:
            bump(self.using, self.parts)
        except DatabaseError:
            logger.exception("Could not move the content version after a commit.")


_scheduled = Local()  # per thread/task: {alias: the _ScheduledBump of the open transaction}


def bump_after_commit(using=DEFAULT_DB_ALIAS, parts=(content_parts.SITE,)) -> None:
    """Move the version and ``parts`` once the transaction commits: each change registers its one
    callback, so a savepoint rolled back takes only its own registration."""
    pending = getattr(_scheduled, "bumps", None)
    if pending is None:
        pending = _scheduled.bumps = {}
    scheduled = pending.get(using)
    if scheduled is None or scheduled.done:
        scheduled = pending[using] = _ScheduledBump(using)
    scheduled.parts.update(parts)
    transaction.on_commit(scheduled, using=using)


def forget(using=None) -> None:
    """Drop the current request's memo (after a bump within the request)."""
    memo = getattr(_request, "states", None)
    if memo is not None:
        if using is None:
            memo.clear()
        else:
            memo.pop(using, None)


# Request scope: connected by blog.reactions to request_started/request_finished.


def start_request(**kwargs):
    _request.states = {}


def finish_request(**kwargs):
    _request.states = None
