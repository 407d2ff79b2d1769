"""The subscribe form against abuse: header injection, robots (the honeypot), floods from one
client or at one address (throttled with a friendly 429, never a 500), and however many
requests get through, at most one confirmation a day reaches an address.
"""

import logging

import pytest
from django.test import Client
from django_tasks_db.models import DBTaskResult

from blog.mail.addresses import InvalidAddress, normalise_address
from blog.mail.subscribing import address_key
from blog.models import Subscriber
from tests import smtp_server as smtp
from tests.background import run_queued_tasks

smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

# Counting confirmations queued after the commit: transactional tests.
pytestmark = pytest.mark.django_db(transaction=True)


def subscribe(client, address, ip="203.0.113.7", language="en", **fields):
    prefix = "/en" if language == "en" else ""
    data = {"email": address, "wants": "en", **fields}
    return client.post(f"{prefix}/subscribe/", data, REMOTE_ADDR=ip)


@pytest.fixture
def quiet(caplog):
    """Django logs every 4xx as a warning: a thousand of them are noise (and time)."""
    caplog.set_level(logging.ERROR, logger="django.request")


def confirmations():
    return DBTaskResult.objects.filter(task_path__endswith="send_confirmation").count()


INJECTIONS = [
    "a@b.example\r\nBcc: x@y.example",
    "a@b.example\nBcc: x@y.example",
    "a@b.example\rBcc: x@y.example",
    "a@b.example\r\n",
    "a@b.example\x00",
    "a@b.example\u2028Bcc: x@y.example",
    "a@b.example, x@y.example",
    "a@b.example;x@y.example",
    "Ann <a@b.example>",
    '"x@y.example, a"@b.example',
    "a@[127.0.0.1]",
    "root@localhost",
    "a@b.example\tBcc",
    "x" * 250 + "@b.example",
]


@pytest.mark.parametrize("address", INJECTIONS)
def test_a_header_injection_or_odd_address_is_refused_and_nothing_is_sent(address):
    response = subscribe(Client(), address)
    assert response.status_code == 400
    assert 'aria-invalid="true"' in response.content.decode()  # the form, with a message
    assert not Subscriber.objects.exists()
    assert confirmations() == 0


def test_the_address_is_normalised_not_rewritten():
    assert normalise_address("  Ann.Lee+blog@Mail.Example.COM ") == "Ann.Lee+blog@mail.example.com"
    assert address_key("Ann.Lee+blog@Mail.Example.COM") == "ann.lee@mail.example.com"
    for bad in INJECTIONS:
        with pytest.raises(InvalidAddress):
            normalise_address(bad)


def test_a_filled_honeypot_gets_the_usual_answer_and_nothing_is_recorded():
    person = subscribe(Client(), "person@example.com", ip="203.0.113.1")
    robot = subscribe(Client(), "robot@example.com", ip="203.0.113.2", homepage="http://spam")
    assert robot.status_code == person.status_code == 200
    assert robot.content == person.content
    assert list(Subscriber.objects.values_list("email", flat=True)) == ["person@example.com"]
    assert confirmations() == 1


def test_a_thousand_requests_from_one_client_are_throttled_and_none_fails(settings, quiet):
    client = Client()
    statuses = [subscribe(client, f"victim{n}@example.com").status_code for n in range(1000)]
    limit = settings.BIJI_SUBSCRIBE_IP_LIMIT
    assert statuses[:limit] == [200] * limit
    assert set(statuses[limit:]) == {429}
    assert Subscriber.objects.count() == limit
    assert confirmations() == limit
    # Another client is not held back by this one.
    assert subscribe(client, "someone@example.com", ip="198.51.100.1").status_code == 200


def test_a_thousand_requests_at_one_address_send_one_confirmation(smtp_server, settings, quiet):
    client = Client()
    statuses = [
        subscribe(client, "victim@example.com", ip=f"10.{n // 250}.{n % 250}.1").status_code
        for n in range(1000)
    ]
    limit = settings.BIJI_SUBSCRIBE_ADDRESS_LIMIT
    assert statuses[:limit] == [200] * limit
    assert set(statuses[limit:]) == {429}
    run_queued_tasks()
    assert len(smtp_server.wait_for(1)) == 1
    run_queued_tasks()
    assert len(smtp_server.received()) == 1


def test_spellings_of_one_mailbox_count_as_one(settings):
    settings.BIJI_SUBSCRIBE_ADDRESS_LIMIT = 2
    client = Client()
    spellings = ["ann@example.com", "ANN+1@example.com", "ann+2@EXAMPLE.com"]
    statuses = [
        subscribe(client, address, ip=f"198.51.100.{n}").status_code
        for n, address in enumerate(spellings)
    ]
    assert statuses == [200, 200, 429]
    last = subscribe(client, "ann@example.com", ip="198.51.100.9")
    assert last["Retry-After"] == str(settings.BIJI_SUBSCRIBE_ADDRESS_WINDOW)


def test_an_ipv6_client_is_counted_by_its_64(settings):
    client = Client()
    limit = settings.BIJI_SUBSCRIBE_IP_LIMIT
    statuses = [
        subscribe(client, f"v{n}@example.com", ip=f"2001:db8:1:2::{n:x}").status_code
        for n in range(limit + 3)
    ]
    assert statuses.count(429) == 3
    assert subscribe(client, "w@example.com", ip="2001:db8:1:3::1").status_code == 200


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Too many requests"), ("zh-hans", '<html lang="zh-Hans"')],
)
def test_the_429_page_is_friendly_and_says_when_to_come_back(settings, language, words):
    settings.BIJI_SUBSCRIBE_IP_LIMIT = 1
    client = Client()
    subscribe(client, "a@example.com", language=language)
    response = subscribe(client, "b@example.com", language=language)
    assert response.status_code == 429
    assert response["Retry-After"] == str(settings.BIJI_SUBSCRIBE_IP_WINDOW)
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    assert words in page and 'class="site-header"' in page


def test_with_the_cache_down_the_form_still_answers_and_the_daily_rule_holds(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens
            "OPTIONS": {"socket_connect_timeout": 0.1, "socket_timeout": 0.1},
        }
    }
    client = Client()
    statuses = [subscribe(client, "ann@example.com").status_code for _ in range(8)]
    assert statuses == [200] * 8
    assert confirmations() == 1
