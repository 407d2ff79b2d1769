"""Subscribers and notes for the email tests, and the worker that sends them."""

import itertools

from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.models import Subscriber, SubscriberState, Wants
from tests.background import run_queued_tasks

_counter = itertools.count(1)


def make_subscriber(email=None, wants=Wants.BOTH, state=SubscriberState.CONFIRMED, **kwargs):
    """A subscriber, confirmed unless told otherwise."""
    email = email or f"reader{next(_counter)}@example.com"
    fields = {"wants": wants, "state": state, "interface_language": "en", **kwargs}
    if state == SubscriberState.CONFIRMED:
        fields.setdefault("confirmed_at", timezone.now())
    return Subscriber.objects.create(email=email, **fields)


def send_queued():
    """Run every due task: announcements, then the batches they queue (the worker takes
    tasks until none is due, those queued meanwhile included)."""
    run_queued_tasks()


def retries_due():
    """Bring the retries of failed tasks forward to now (their backoff is tested apart)."""
    DBTaskResult.objects.filter(status=TaskResultStatus.READY).update(run_after=timezone.now())


def received_by(smtp_server):
    """{address: [subjects]} of every message the server accepted."""
    by_address = {}
    for received in smtp_server.received():
        for address in received.rcpt_tos:
            by_address.setdefault(address, []).append(received.message["Subject"])
    return by_address
