"""An imported subscriber list written into the database, as far as the importing user's rights go.

Without ``may_change``, new addresses come in pending and get a confirmation request, and addresses
here already are not changed. An address turned off here is never turned back on by a file.
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

# What was done, by kind of row.
ADDED_CONFIRMED = "added confirmed"  # new, confirmed as the file says
ADDED_PENDING = "added pending"  # new, the file says nothing of a confirmation
ADDED_UNSUBSCRIBED = "added unsubscribed"  # new, unsubscribed as the file says
ADDED_BOUNCED = "added bounced"  # new, bounced as the file says
TURNED_OFF = "turned off"  # here already and on; the file says it left or bounced
CONFIRMED = "confirmed"  # here already and pending; the file says it confirmed
UNCHANGED = "unchanged"  # here already; the file says nothing that changes it
# What was refused, by kind of row.
ADDED_UNCONFIRMED = "added pending, not confirmed"  # new; confirmed in the file: no right
NOT_ADDED_OFF = "not added, off"  # new; unsubscribed or bounced in the file: no right
NOT_TURNED_OFF = "not turned off"  # here already and on; off in the file: no right
NOT_CONFIRMED = "not confirmed"  # here already and pending; confirmed in the file: no right
NOT_TURNED_ON = "not turned on"  # off here, on in the file: nobody's import turns it on

ADDED = {
    SubscriberState.CONFIRMED: ADDED_CONFIRMED,
    SubscriberState.PENDING: ADDED_PENDING,
    SubscriberState.UNSUBSCRIBED: ADDED_UNSUBSCRIBED,
    SubscriberState.BOUNCED: ADDED_BOUNCED,
}


@dataclass
class Outcome:
    done: Counter = field(default_factory=Counter)  # kind: rows
    refused: Counter = field(default_factory=Counter)  # kind: rows
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    pending: list[Subscriber] = field(default_factory=list)  # the new pending addresses
    # The new pending addresses that must be sent a confirmation request (the double opt-in
    # of a user who may not confirm addresses); the others' requests are the user's choice.
    to_confirm: list[Subscriber] = field(default_factory=list)


def import_reading(reading, *, source, wants, may_change, interface_language=""):
    """Write ``reading``'s rows as a user who may (``may_change``) or may not change subscribers;
    ``wants`` for rows naming no language, ``source`` on new rows."""
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
                _update(outcome, here, row, now, may_change, series, tags, wants)
                continue
            if may_change:
                outcome.done[ADDED[row.state]] += 1
            elif row.state in OFF:
                outcome.refused[NOT_ADDED_OFF] += 1
                continue
            else:
                if row.state == SubscriberState.CONFIRMED:
                    outcome.refused[ADDED_UNCONFIRMED] += 1
                else:
                    outcome.done[ADDED_PENDING] += 1
                row = _pending(row)
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
    outcome.done, outcome.refused = +outcome.done, +outcome.refused  # no kind counted 0
    outcome.pending = [s for s in new if s.state == SubscriberState.PENDING]
    outcome.to_confirm = [] if may_change else outcome.pending
    return outcome


def _existing():
    """Every address here, lower-cased, with its id and state (one query: 100,000 rows are a
    few megabytes, and a lookup per chunk of the file would read the table again each time)."""
    rows = Subscriber.objects.values_list("pk", "email", "state").iterator(chunk_size=5000)
    return {email.lower(): (pk, state) for pk, email, state in rows}


def _update(outcome, here, row, now, may_change, series, tags, wants):
    """An address here already, as ``row`` of the file says it stands."""
    pk, state = here
    if state in OFF and row.state in ON:
        outcome.refused[NOT_TURNED_ON] += 1
    elif state in ON and row.state in OFF:
        if not may_change:
            outcome.refused[NOT_TURNED_OFF] += 1
        elif _turn_off(pk, row, now):
            outcome.done[TURNED_OFF] += 1
        else:  # turned off here meanwhile
            outcome.done[UNCHANGED] += 1
    elif state == SubscriberState.PENDING and row.state == SubscriberState.CONFIRMED:
        if not may_change:
            outcome.refused[NOT_CONFIRMED] += 1
        elif _confirm(pk, row, now, series, tags, wants):
            outcome.done[CONFIRMED] += 1
        else:
            outcome.done[UNCHANGED] += 1
    else:
        outcome.done[UNCHANGED] += 1


def _turn_off(pk, row, now):
    """Turn the address ``pk`` off as ``row`` says, if it is still on."""
    return Subscriber.objects.filter(pk=pk, state__in=ON).update(
        state=row.state,
        unsubscribed_at=row.unsubscribed_at or now,
        state_reason=(row.state_reason or "import")[:200],
    )


def _confirm(pk, row, now, series, tags, wants):
    """Confirm the pending address ``pk`` as ``row`` says, with the file's choice (a pending
    row's choice is only a request: whoever typed the address made it)."""
    return Subscriber.objects.filter(pk=pk, state=SubscriberState.PENDING).update(
        state=SubscriberState.CONFIRMED,
        confirmed_at=row.confirmed_at or now,
        wants=row.wants or wants,
        series=series.get(row.series) if row.series else None,
        tag=tags.get(row.tag) if row.tag else None,
        unsubscribed_at=None,
        state_reason="import",
    )


def _pending(row):
    """``row`` as a new pending address, its confirmation from the file not written, its request
    sent now."""
    row.state = SubscriberState.PENDING
    row.confirmed_at = row.confirmation_sent_at = row.unsubscribed_at = None
    row.state_reason = ""
    return row


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
