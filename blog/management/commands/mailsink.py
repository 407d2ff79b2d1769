"""``manage.py mailsink``: a local SMTP server that keeps every message in ``var/mail/`` as an
``.eml`` file and relays nothing, for development (``make run``; docs/email.md). aiosmtpd is a
development dependency."""

import email
import threading
from datetime import datetime
from email import policy
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Sink:
    """aiosmtpd's handler: each message to a file, and a line on the console."""

    def __init__(self, folder, write):
        self.folder = Path(folder)
        self.write = write
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's hook name)
        data = envelope.original_content or envelope.content
        message = email.message_from_bytes(data, policy=policy.default)
        with self.lock:
            self.count += 1
            name = f"{datetime.now():%Y%m%d-%H%M%S}-{self.count:05d}.eml"
        path = self.folder / name
        path.write_bytes(data)
        recipients = ", ".join(envelope.rcpt_tos)
        self.write(f"mail to {recipients}: {message.get('Subject', '')} ({path})")
        return "250 2.0.0 Kept"


class Command(BaseCommand):
    help = "A local SMTP server that writes every message it receives to var/mail/ (development)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=1025)
        parser.add_argument(
            "--folder", default=str(settings.BASE_DIR / "var" / "mail"), help="where to write"
        )

    def handle(self, *args, host, port, folder, **options):
        try:
            from aiosmtpd.controller import Controller
        except ImportError:
            raise CommandError(
                "aiosmtpd is not installed: it is a development dependency (pip install -e "
                "'.[dev]'). In production, point EMAIL_URL at a mail server or provider."
            ) from None
        Path(folder).mkdir(parents=True, exist_ok=True)
        sink = Sink(folder, self._say)
        controller = Controller(
            sink, hostname=host, port=port, decode_data=False, enable_SMTPUTF8=True
        )
        try:
            controller.start()
        except OSError as error:
            raise CommandError(f"cannot listen on {host}:{port}: {error}") from None
        self.stdout.write(f"mail sink on smtp://{host}:{port}, keeping messages in {folder}")
        stop = threading.Event()
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass
        finally:
            controller.stop()

    def _say(self, line):
        self.stdout.write(line)
        self.stdout.flush()  # at once, also when make's output is a pipe
