"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, a free port, in a thread of its own.

Every message it accepts is kept as a :class:`Received` (the envelope, the bytes as they came
and the parsed :class:`email.message.EmailMessage`), so a test reads what a mail server was
really handed over the wire, not what Django's locmem backend was given.

    from tests import smtp_server as smtp

    smtp_server = smtp.smtp_server  # the fixture

    def test_x(smtp_server):
        ...send...
        (received,) = smtp_server.wait_for(1)
        assert received.message["Subject"] == "..."

The fixture points Django's EMAIL_* settings at the server (SMTP backend, no TLS, no login)
for the test. A worker in another process reaches it with ``EMAIL_URL=server.email_url``.
``delay`` slows every message (a slow provider, to kill a worker mid-send), ``refuse``
makes the next messages fail with a temporary error (4xx), as a busy server does, and
``refuse_recipients`` answers RCPT TO for the addresses it names with the reply given
("550 5.1.1 No such user").
"""

import asyncio
import email
import socket
import threading
import time
from dataclasses import dataclass, field
from email import policy

import pytest
from aiosmtpd.controller import Controller


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Received:
    """One message the server accepted."""

    mail_from: str
    rcpt_tos: list
    data: bytes
    peer: tuple  # the client's (host, port): one per SMTP connection
    message: email.message.EmailMessage = field(repr=False)

    @property
    def to(self):
        return self.rcpt_tos[0] if len(self.rcpt_tos) == 1 else self.rcpt_tos


class _Handler:
    def __init__(self, server):
        self.server = server

    async def handle_RCPT(self, smtp, session, envelope, address, rcpt_options):  # noqa: N802
        reply = self.server.refuse_recipients.get(address)
        if reply:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, smtp, session, envelope):  # noqa: N802 (aiosmtpd's hook name)
        server = self.server
        if server.delay:
            await asyncio.sleep(server.delay)
        with server.lock:
            if server.refuse > 0:
                server.refuse -= 1
                server.refused += 1
                return "451 4.3.0 Try again later"
            data = envelope.original_content or envelope.content
            server.messages.append(
                Received(
                    mail_from=envelope.mail_from,
                    rcpt_tos=list(envelope.rcpt_tos),
                    data=data,
                    peer=tuple(session.peer[:2]) if session.peer else (),
                    message=email.message_from_bytes(data, policy=policy.default),
                )
            )
            server.arrived.notify_all()
        return "250 2.0.0 OK"


class SmtpServer:
    """aiosmtpd's Controller with the messages it received."""

    def __init__(self, port=None, delay=0.0):
        self.port = port or free_port()
        self.delay = delay
        self.refuse = 0  # how many of the next messages get a 451
        self.refused = 0
        self.refuse_recipients = {}  # address: the reply to its RCPT TO
        self.messages = []
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.controller = Controller(
            _Handler(self),
            hostname="127.0.0.1",
            port=self.port,
            # The whole message as it came (SMTPUTF8 addresses too), decoded by the test.
            decode_data=False,
            enable_SMTPUTF8=True,
        )

    @property
    def email_url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def start(self):
        self.controller.start()
        return self

    def stop(self):
        self.controller.stop()

    def wait_for(self, count, timeout=10):
        """The messages once at least ``count`` have arrived (an AssertionError after
        ``timeout`` seconds with fewer)."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"{len(self.messages)} messages arrived in {timeout} s, not {count}"
                    )
                self.arrived.wait(left)
            return list(self.messages)

    def received(self):
        with self.lock:
            return list(self.messages)

    def to(self, address):
        """The messages addressed to ``address``."""
        return [m for m in self.received() if address in m.rcpt_tos]

    def clear(self):
        with self.lock:
            self.messages.clear()


def point_settings_at(settings, server):
    """Django's SMTP backend aimed at ``server`` (on the pytest-django ``settings`` fixture)."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = server.port
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 10


@pytest.fixture
def smtp_server(settings):
    """A running :class:`SmtpServer`, Django's email settings pointing at it."""
    server = SmtpServer().start()
    point_settings_at(settings, server)
    try:
        yield server
    finally:
        server.stop()
