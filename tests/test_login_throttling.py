"""Login throttling (django-axes): a user name tried from one address is locked after a few
wrong passwords, with a translated 429 page, until the cool-off passes or an admin unlocks it.

The reproduction: 50 wrong admin passwords in 12.6 s met no delay and no lockout.
"""

from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone, translation

from blog.authoring.login import client_ip
from tests.factories import make_staff

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _interface_language():
    yield
    translation.activate("zh-hans")


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    # Dozens of logins: PBKDF2's deliberate slowness would make this file take minutes.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def author(_fast_hashing):
    return make_staff("author", PASSWORD)


def log_in(client, password, username="author", ip="203.0.113.7", language="en"):
    return client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": reverse("admin:index")},
        REMOTE_ADDR=ip,
        headers={"accept-language": language},
    )


def logged_in(response):
    return response.status_code == 302 and response["Location"] == reverse("admin:index")


def lock_out(client, settings, **kwargs):
    responses = [log_in(client, "wrong", **kwargs) for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert [r.status_code for r in responses[:-1]] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    return responses[-1]


def test_the_defaults(settings):
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"


def test_wrong_passwords_lock_the_user_at_that_address_even_for_the_right_one(client, author):
    for _ in range(4):
        assert log_in(client, "wrong").status_code == 200  # the form again, with its error
    locked = log_in(client, "wrong")
    assert locked.status_code == 429
    text = locked.content.decode()
    assert "Too many failed logins" in text
    assert "15 minutes" in text
    assert locked["Retry-After"] == str(15 * 60)
    assert "no-store" in locked["Cache-Control"]

    right = log_in(client, PASSWORD)
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_lockout_page_is_in_the_authors_language(client, author, settings):
    locked = lock_out(client, settings, language="zh-CN")
    assert locked.status_code == 429
    text = locked.content.decode()
    assert "登录失败次数过多" in text
    assert "15 分钟后重试" in text
    assert 'lang="zh-hans"' in text


def test_the_lock_is_for_that_user_name_from_that_address_only(client, author, settings):
    lock_out(client, settings)
    make_staff("editor", PASSWORD)
    assert logged_in(log_in(client, PASSWORD, username="editor"))  # other user, same address
    client.logout()
    assert logged_in(log_in(client, PASSWORD, ip="198.51.100.20"))  # same user, elsewhere


def test_the_lock_ends_after_the_cool_off(client, author, settings):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        lock_out(client, settings)
        assert log_in(client, PASSWORD).status_code == 429
    with time_machine.travel(start + timedelta(minutes=14), tick=False):
        assert log_in(client, PASSWORD).status_code == 429  # and counts from this attempt
    with time_machine.travel(start + timedelta(minutes=14 + 16), tick=False):
        assert logged_in(log_in(client, PASSWORD))


def test_an_admin_unlocks_at_once_with_axes_reset_username(client, author, settings):
    lock_out(client, settings)
    assert log_in(client, PASSWORD).status_code == 429
    call_command("axes_reset_username", "author", verbosity=0)
    assert logged_in(log_in(client, PASSWORD))


def test_axes_reset_unlocks_everyone(client, author, settings):
    lock_out(client, settings)
    call_command("axes_reset", verbosity=0)
    assert not AccessAttempt.objects.exists()
    assert logged_in(log_in(client, PASSWORD))


def test_a_successful_login_starts_the_count_again(client, author, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        log_in(client, "wrong")
    assert logged_in(log_in(client, PASSWORD))
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "wrong").status_code == 200


def test_the_limit_is_a_setting(client, author, settings):
    settings.AXES_FAILURE_LIMIT = 2
    assert log_in(client, "wrong").status_code == 200
    assert log_in(client, "wrong").status_code == 429


def test_behind_a_proxy_the_address_it_appended_counts(settings):
    request = RequestFactory().get(
        "/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.9"
    )
    settings.BIJI_BEHIND_PROXY = False
    assert client_ip(request) == "127.0.0.1"
    settings.BIJI_BEHIND_PROXY = True
    # The first entry is whatever the client sent; the last is what the proxy saw.
    assert client_ip(request) == "198.51.100.9"


def test_force_login_is_untouched(staff_client):
    assert staff_client.get(reverse("admin:index")).status_code == 200
