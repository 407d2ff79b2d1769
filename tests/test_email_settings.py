"""Where email goes: EMAIL_URL read at start-up, and `make run`'s local mail sink."""

import email
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.email_url import email_settings, mail_domain
from tests.processes import ROOT, manage, site_env
from tests.smtp_server import free_port

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

SMTP = "django.core.mail.backends.smtp.EmailBackend"


def test_smtp_with_starttls_a_login_and_an_encoded_password():
    assert email_settings("smtp://ada:p%40ss%3Aword@mail.example.com:587?tls=1") == {
        "EMAIL_BACKEND": SMTP,
        "EMAIL_HOST": "mail.example.com",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "ada",
        "EMAIL_HOST_PASSWORD": "p@ss:word",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_TIMEOUT": 30.0,
    }


def test_smtps_and_the_default_ports():
    assert email_settings("smtps://mail.example.com")["EMAIL_PORT"] == 465
    assert email_settings("smtps://mail.example.com")["EMAIL_USE_SSL"] is True
    assert email_settings("smtp://mail.example.com?tls=1")["EMAIL_PORT"] == 587
    assert email_settings("smtp://mail.example.com")["EMAIL_PORT"] == 25


def test_without_email_url_the_console_in_debug_else_the_local_server():
    assert email_settings("", debug=True) == {
        "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"
    }
    production = email_settings("", debug=False)
    assert (production["EMAIL_HOST"], production["EMAIL_PORT"]) == ("localhost", 25)


@pytest.mark.parametrize(
    "url, backend, anymail",
    [
        (
            "postmark://Server-Token-1",
            "anymail.backends.postmark.EmailBackend",
            {"POSTMARK_SERVER_TOKEN": "Server-Token-1"},
        ),
        ("resend://re_AbC", "anymail.backends.resend.EmailBackend", {"RESEND_API_KEY": "re_AbC"}),
        (
            "mailgun://Key-1@mg.example.com?api_url=https://api.eu.mailgun.net/v3",
            "anymail.backends.mailgun.EmailBackend",
            {
                "MAILGUN_API_KEY": "Key-1",
                "MAILGUN_SENDER_DOMAIN": "mg.example.com",
                "MAILGUN_API_URL": "https://api.eu.mailgun.net/v3",
            },
        ),
        (
            "mailjet://Key:Secret",
            "anymail.backends.mailjet.EmailBackend",
            {"MAILJET_API_KEY": "Key", "MAILJET_SECRET_KEY": "Secret"},
        ),
        ("ses://", "anymail.backends.amazon_ses.EmailBackend", {}),
        (
            "ses://AKIA:Secret%2Fx@eu-west-1",
            "anymail.backends.amazon_ses.EmailBackend",
            {
                "AMAZON_SES_CLIENT_PARAMS": {
                    "region_name": "eu-west-1",
                    "aws_access_key_id": "AKIA",
                    "aws_secret_access_key": "Secret/x",
                }
            },
        ),
    ],
)
def test_providers_through_anymail_keep_their_keys_case(url, backend, anymail):
    assert email_settings(url) == {"EMAIL_BACKEND": backend, "ANYMAIL": anymail}


@pytest.mark.parametrize("url", ["gopher://x", "postmark://", "smtp://host:port"])
def test_a_url_that_cannot_work_is_refused_at_start(url):
    with pytest.raises(ImproperlyConfigured):
        email_settings(url)


def test_the_senders_domain_is_the_sites_or_localhost():
    assert mail_domain("https://blog.example.com/notes") == "blog.example.com"
    assert mail_domain("http://127.0.0.1:8000") == "localhost"
    assert mail_domain("http://localhost:8000") == "localhost"


def test_the_environment_sets_the_sites_email_at_start(tmp_path):
    env = site_env(
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        tmp_path / "media",
        EMAIL_URL="postmark://Token-1",
        SITE_URL="https://notes.example.org",
        BIJI_MAIL_RATE="2.5",
    )
    shown = manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        "from django.conf import settings as s; "
        "print(s.EMAIL_BACKEND, s.ANYMAIL, s.DEFAULT_FROM_EMAIL, s.BIJI_MAIL_RATE)",
    )
    assert shown.split(" ", 1)[0] == "anymail.backends.postmark.EmailBackend"
    assert "'POSTMARK_SERVER_TOKEN': 'Token-1'" in shown
    assert shown.rstrip().endswith("biji@notes.example.org 2.5")


def test_the_mail_sink_keeps_every_message_in_a_file(tmp_path):
    port, folder = free_port(), tmp_path / "mail"
    env = site_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "media")
    sink = subprocess.Popen(
        [sys.executable, "manage.py", "mailsink", "--port", str(port), "--folder", str(folder)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "mail sink on smtp://127.0.0.1:" in sink.stdout.readline()
        message = EmailMessage()
        message["Subject"], message["From"] = "你好 sink", "a@x.example"
        message["To"] = "b@y.example"
        message.set_content("Body ünïcode.")
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
            client.send_message(message)
        line = sink.stdout.readline()
        assert line.startswith("mail to b@y.example: 你好 sink (")
    finally:
        os.kill(sink.pid, signal.SIGTERM)
        sink.wait(timeout=10)
    deadline = time.monotonic() + 5
    while not list(folder.glob("*.eml")) and time.monotonic() < deadline:
        time.sleep(0.05)
    (kept,) = folder.glob("*.eml")
    parsed = email.message_from_bytes(kept.read_bytes(), policy=policy.default)
    assert parsed["Subject"] == "你好 sink" and parsed.get_content().strip() == "Body ünïcode."


@pytest.mark.backend_independent
@pytest.mark.parametrize(("port", "sink"), [("8000", "1025"), ("8001", "1026"), ("80", "20080")])
def test_make_runs_the_mail_sink_beside_the_server_s_port(port, sink):
    """A second `make serve PORT=8001` gets a sink of its own, not "cannot listen on 1025"."""
    planned = subprocess.run(
        [shutil.which("make"), "-n", "run", f"PORT={port}"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert f"mailsink --port {sink} " in planned
    assert f"EMAIL_URL='smtp://127.0.0.1:{sink}'" in planned
