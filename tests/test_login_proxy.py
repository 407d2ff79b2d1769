"""Behind reverse proxies, the login lockout counts the address the outermost trusted proxy saw,
never one the client wrote into X-Forwarded-For (issue 17, item 12).

With DJANGO_BEHIND_PROXY=1, each proxy appends the address it received the request from.
BIJI_TRUSTED_PROXIES (1 by default) says how many do: the entry that many from the right is
the client's address; what is left of it is the client's own text. Before, the last entry was
taken whatever the setup, so behind a CDN and nginx every reader counted as the CDN's edge: a
stranger's wrong passwords locked the author out everywhere.
"""

import pytest
from django.test import RequestFactory
from django.urls import reverse

from blog.authoring.login import client_ip
from tests.factories import make_staff
from tests.test_settings import run_manage

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
EDGE = "10.0.0.2"  # the CDN's edge, as nginx sees it
NGINX = "127.0.0.1"  # the TCP peer gunicorn sees


@pytest.fixture
def two_proxies(settings):
    settings.BIJI_BEHIND_PROXY = True
    settings.BIJI_TRUSTED_PROXIES = 2


def forwarded(header, remote=NGINX):
    return RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=header)


def log_in(client, password, forwarded_for):
    return client.post(
        reverse("admin:login"),
        {"username": "author", "password": password, "next": reverse("admin:index")},
        REMOTE_ADDR=NGINX,
        HTTP_X_FORWARDED_FOR=forwarded_for,
    )


def test_the_address_that_many_proxies_from_the_right_counts(settings, two_proxies):
    # The client wrote "6.6.6.6"; the CDN appended the client's address, nginx the CDN's.
    assert client_ip(forwarded(f"6.6.6.6, 203.0.113.7, {EDGE}")) == "203.0.113.7"
    assert client_ip(forwarded(f"203.0.113.7, {EDGE}")) == "203.0.113.7"
    settings.BIJI_TRUSTED_PROXIES = 1
    assert client_ip(forwarded("6.6.6.6, 203.0.113.7")) == "203.0.113.7"


def test_a_header_shorter_than_the_proxy_chain_did_not_come_through_it(two_proxies):
    # One entry where two proxies would have written two: it reached gunicorn some other way,
    # so the TCP peer counts.
    assert client_ip(forwarded("198.51.100.1", remote="192.0.2.50")) == "192.0.2.50"
    assert client_ip(forwarded("", remote="192.0.2.50")) == "192.0.2.50"


def test_a_spoofed_address_does_not_lock_the_author_out(client, settings, two_proxies):
    make_staff("author", PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        # A stranger at 198.51.100.66 claims to be the author's address.
        log_in(client, "wrong", f"203.0.113.7, 198.51.100.66, {EDGE}")
    assert log_in(client, "wrong", f"198.51.100.66, {EDGE}").status_code == 429
    author = log_in(client, PASSWORD, f"203.0.113.7, {EDGE}")
    assert author.status_code == 302 and author["Location"] == reverse("admin:index")


def test_rotating_the_header_does_not_escape_the_lockout(client, settings, two_proxies):
    make_staff("author", PASSWORD)
    statuses = [
        log_in(client, "wrong", f"192.0.2.{n}, 198.51.100.66, {EDGE}").status_code
        for n in range(settings.AXES_FAILURE_LIMIT + 3)
    ]
    assert statuses[settings.AXES_FAILURE_LIMIT - 1 :] == [429] * 4


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_bad_number_of_proxies_is_refused_with_a_clear_message(value):
    result = run_manage(
        "check", env={"DJANGO_SECRET_KEY": "test-only", "BIJI_TRUSTED_PROXIES": value}
    )
    assert result.returncode != 0
    assert f"BIJI_TRUSTED_PROXIES={value!r}" in result.stderr
    assert "a whole number of 1 or more" in result.stderr
