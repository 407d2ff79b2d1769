"""Sending on the background runner: a record per recipient before and after, retries with
backoff, a rate limit, and a worker killed mid-send that loses nothing and repeats at most
one message (with its Message-ID)."""

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.mail.announce import announce
from blog.models import Delivery, DeliveryState, Status, SubscriberState, Wants
from tests import smtp_server as smtp
from tests.factories import make_note
from tests.mail_data import make_subscriber, retries_due, send_queued
from tests.processes import ROOT, manage, migrate, site_env
from tests.smtp_server import free_port
from tests.test_background_runner import postgres_database  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)
smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test


@pytest.fixture(autouse=True)
def no_rate_limit(settings):
    settings.BIJI_MAIL_RATE = 0


def announced(count, **note):
    readers = [make_subscriber(f"r{i}@example.com", Wants.BOTH) for i in range(count)]
    note = make_note(**note)
    announce(note)
    return note, readers


def states():
    return Counter(Delivery.objects.values_list("state", flat=True))


def test_each_delivery_is_recorded_before_and_after_sending(smtp_server):
    note, readers = announced(3)
    assert states() == {DeliveryState.QUEUED: 3}
    send_queued()
    received = smtp_server.wait_for(3)
    assert sorted(r.rcpt_tos[0] for r in received) == sorted(r.email for r in readers)
    assert len({r.peer for r in received}) == 1  # one connection for the batch
    for delivery in Delivery.objects.all():
        assert (delivery.state, delivery.attempts, delivery.error) == (DeliveryState.SENT, 1, "")
        assert delivery.sent_at is not None


def test_a_temporary_refusal_is_retried_later_and_sent_once(smtp_server):
    announced(3)
    smtp_server.refuse = 1  # "451 Try again later" to the first message
    send_queued()
    failed = Delivery.objects.get(state=DeliveryState.FAILED)
    assert failed.error.startswith("451")
    assert states() == {DeliveryState.SENT: 2, DeliveryState.FAILED: 1}
    # The task waits for its backoff, its error kept for the admin.
    (task,) = DBTaskResult.objects.filter(task_path__endswith="send_deliveries")
    assert task.status == TaskResultStatus.READY and "NotAllSent" in task.exception_class_path
    send_queued()
    assert states()[DeliveryState.FAILED] == 1  # not before its time
    retries_due()
    send_queued()
    assert states() == {DeliveryState.SENT: 3}
    assert Delivery.objects.get(pk=failed.pk).attempts == 2
    assert sorted(Counter(r.rcpt_tos[0] for r in smtp_server.received()).values()) == [1, 1, 1]


def test_a_permanent_refusal_is_kept_and_never_retried(smtp_server):
    announced(2)
    smtp_server.refuse_recipients["r0@example.com"] = "550 5.1.1 No such user"
    send_queued()
    refused = Delivery.objects.get(subscriber__email="r0@example.com")
    assert (refused.state, refused.error) == (DeliveryState.FAILED, "550 5.1.1 No such user")
    assert Delivery.objects.get(subscriber__email="r1@example.com").state == DeliveryState.SENT
    (task,) = DBTaskResult.objects.filter(task_path__endswith="send_deliveries")
    assert task.status == TaskResultStatus.SUCCESSFUL
    assert task.return_value["failed"] == 1 and task.return_value["sent"] == 1


def test_a_server_that_is_away_leaves_the_batch_queued_until_it_is_back(smtp_server, settings):
    settings.EMAIL_PORT = free_port()  # nobody listens there
    announced(3)
    send_queued()
    assert states() == {DeliveryState.QUEUED: 3}
    assert smtp_server.received() == []
    settings.EMAIL_PORT = smtp_server.port
    retries_due()
    send_queued()
    assert states() == {DeliveryState.SENT: 3}


def test_an_address_unsubscribed_after_the_announcement_is_not_sent_it(smtp_server):
    _, readers = announced(2)
    readers[0].state = SubscriberState.UNSUBSCRIBED
    readers[0].save()
    send_queued()
    assert [r.rcpt_tos for r in smtp_server.received()] == [[readers[1].email]]
    assert not Delivery.objects.filter(subscriber=readers[0]).exists()


def test_a_delivery_left_sending_is_sent_again_with_its_message_id(smtp_server):
    """What a worker killed between "sending" and "sent" leaves: that one goes again,
    recognisably the same message; one recorded as sent never does."""
    announced(3)
    left, done, queued = Delivery.objects.order_by("pk")
    Delivery.objects.filter(pk=left.pk).update(state=DeliveryState.SENDING, attempts=1)
    Delivery.objects.filter(pk=done.pk).update(state=DeliveryState.SENT, attempts=1)
    send_queued()
    received = {r.rcpt_tos[0]: r.message["Message-ID"] for r in smtp_server.received()}
    assert received == {
        left.subscriber.email: left.message_id,
        queued.subscriber.email: queued.message_id,
    }
    assert Delivery.objects.get(pk=left.pk).attempts == 2


def test_a_note_taken_back_holds_its_emails_until_it_is_published_again(smtp_server):
    note, _ = announced(2)
    note.status = Status.DRAFT
    note.save()
    send_queued()
    assert smtp_server.received() == [] and states() == {DeliveryState.QUEUED: 2}
    note.status = Status.PUBLISHED
    note.save()
    retries_due()
    send_queued()
    assert states() == {DeliveryState.SENT: 2}


def test_messages_are_paced_at_the_configured_rate(smtp_server, settings):
    settings.BIJI_MAIL_RATE = 10  # a message every 0.1 s
    announced(4)
    start = time.monotonic()
    send_queued()
    assert len(smtp_server.wait_for(4)) == 4
    assert time.monotonic() - start >= 0.3


# --- a real worker process, killed -9 in the middle of a batch -----------------------------

SUBSCRIBERS = 40
SETUP = f"""
from blog.mail.announce import announce
from tests.factories import make_note
from tests.mail_data import make_subscriber
for i in range({SUBSCRIBERS}):
    make_subscriber(f"r{{i}}@example.com")
print(announce(make_note(slug="killed")))
"""
STATES = (
    "from collections import Counter; from blog.models import Delivery; "
    "print(dict(Counter(Delivery.objects.values_list('state', flat=True))))"
)


def killed_mid_send_loses_nothing(tmp_path, env, smtp_server):
    smtp_server.delay = 0.1  # a slow server: the batch takes four seconds
    env = {**env, "EMAIL_URL": smtp_server.email_url, "BIJI_MAIL_RATE": "0"}
    env["SITE_URL"] = "https://blog.example"
    migrate(env)
    assert manage(env, "shell", "-v", "0", "-c", SETUP).strip() == str(SUBSCRIBERS)
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        smtp_server.wait_for(10, timeout=60)
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
    time.sleep(0.3)  # a message the server was taking when the worker died
    before = len(smtp_server.received())
    assert before < SUBSCRIBERS, "the batch ended before the worker was killed"
    # A new worker sweeps the dead one's task back into the queue and finishes the batch.
    manage(env, "db_worker", "--batch", "--no-startup-delay")
    assert manage(env, "shell", "-v", "0", "-c", STATES).strip() == f"{{'sent': {SUBSCRIBERS}}}"
    received = smtp_server.received()
    per_address = Counter(r.rcpt_tos[0] for r in received)
    assert set(per_address) == {f"r{i}@example.com" for i in range(SUBSCRIBERS)}  # none lost
    repeated = [address for address, count in per_address.items() if count > 1]
    assert len(repeated) <= 1 and max(per_address.values()) <= 2, per_address
    for address in repeated:  # the one in flight when the worker died: the same message
        ids = {r.message["Message-ID"] for r in received if r.rcpt_tos == [address]}
        assert len(ids) == 1


@pytest.mark.slow
def test_a_worker_killed_mid_send_loses_nothing_and_repeats_at_most_one(tmp_path, smtp_server):
    env = site_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "media")
    killed_mid_send_loses_nothing(tmp_path, env, smtp_server)


@pytest.mark.slow
def test_on_postgresql_too(tmp_path, smtp_server, postgres_database):  # noqa: F811
    env = site_env(postgres_database, tmp_path / "media")
    killed_mid_send_loses_nothing(tmp_path, env, smtp_server)
