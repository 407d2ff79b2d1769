"""An imported subscriber list written into the database (the file read by
:mod:`.subscriber_csv`).

An import never turns an address on: a new address gets the state its file gives it (confirmed
only when the file says it confirmed), and an address biji has already is left as it is,
except that a file saying it unsubscribed or bounced turns it off (an old list's
unsubscribes are honoured, never undone). Nothing is sent here: confirmation requests to the
new pending addresses are the caller's choice (:attr:`Outcome.pending`).
"""

from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from blog.models import Series, Tag
from blog.models.subscribers import Subscriber, SubscriberState

ON = (SubscriberState.PENDING, SubscriberState.CONFIRMED)
OFF = (SubscriberState.UNSUBSCRIBED, SubscriberState.BOUNCED)
CHUNK = 500


@dataclass
class Outcome:
    created: Counter = field(default_factory=Counter)  # new addresses by state
    turned_off: int = 0  # addresses here already that the file says left or bounced
    unchanged: int = 0  # addresses here already, left as they were
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    pending: list[Subscriber] = field(default_factory=list)  # the new pending addresses


def import_reading(reading, *, source, wants, interface_language=""):
    """Write ``reading``'s rows: ``wants`` for the rows whose file names no language,
    ``source`` on every new row (biji's own rows keep theirs)."""
    outcome = Outcome(problems=list(reading.problems))
    now = timezone.now()
    languages = {code for code, _name in settings.LANGUAGES}
    series = {s.slug: s for s in Series.objects.all()} if reading.format == "biji" else {}
    tags = {t.slug: t for t in Tag.objects.all()} if reading.format == "biji" else {}
    rows = []
    for row in reading.rows:
        if row.series and row.series not in series:
            outcome.problems.append((row.line, _("No series “%(slug)s”.") % {"slug": row.series}))
        elif row.tag and row.tag not in tags:
            outcome.problems.append((row.line, _("No tag “%(slug)s”.") % {"slug": row.tag}))
        else:
            rows.append(row)
    with transaction.atomic():
        existing = _existing()
        new, dated = [], []
        for row in rows:
            here = existing.get(row.email.lower())
            if here is not None:
                pk, state = here
                if row.state in OFF and state in ON and _turn_off(pk, row, now):
                    outcome.turned_off += 1
                else:
                    outcome.unchanged += 1
                continue
            subscriber = _new(row, series, tags, now, source, wants, languages, interface_language)
            new.append(subscriber)
            if row.created_at is not None:
                dated.append((subscriber, row.created_at))
        Subscriber.objects.bulk_create(new, batch_size=CHUNK)
        # created_at is set on insert (auto_now_add): the file's dates go in after, the
        # slowest step (about 2 s a 5,000 rows).
        for subscriber, created_at in dated:
            subscriber.created_at = created_at
        Subscriber.objects.bulk_update(
            [subscriber for subscriber, _when in dated], ["created_at"], batch_size=CHUNK
        )
    outcome.problems.sort()
    outcome.created.update(subscriber.state for subscriber in new)
    outcome.pending = [s for s in new if s.state == SubscriberState.PENDING]
    return outcome


def _existing():
    """Every address here, lower-cased, with its id and state (one query: 100,000 rows are a
    few megabytes, and a lookup per chunk of the file would read the table again each time)."""
    rows = Subscriber.objects.values_list("pk", "email", "state").iterator(chunk_size=5000)
    return {email.lower(): (pk, state) for pk, email, state in rows}


def _turn_off(pk, row, now):
    """Turn the address ``pk`` off as ``row`` says, if it is still on."""
    return Subscriber.objects.filter(pk=pk, state__in=ON).update(
        state=row.state,
        unsubscribed_at=row.unsubscribed_at or now,
        state_reason=(row.state_reason or "import")[:200],
    )


def _new(row, series, tags, now, source, wants, languages, interface_language):
    confirmed = row.state == SubscriberState.CONFIRMED
    off = row.state in OFF
    subscriber_wants = row.wants or wants
    language = row.interface_language or (
        subscriber_wants if subscriber_wants in languages else interface_language
    )
    return Subscriber(
        email=row.email,
        wants=subscriber_wants,
        series=series.get(row.series) if row.series else None,
        tag=tags.get(row.tag) if row.tag else None,
        state=row.state,
        interface_language=language if language in languages else settings.LANGUAGE_CODE,
        source=(source if row.source is None else row.source)[:100],
        confirmation_sent_at=row.confirmation_sent_at,
        # A confirmed row whose file gives no time confirmed by its signup, or by now.
        confirmed_at=row.confirmed_at or ((row.created_at or now) if confirmed else None),
        unsubscribed_at=row.unsubscribed_at or (now if off else None),
        state_reason=row.state_reason[:200],
    )
