"""A WebSub hub for the tests: a real HTTP server in a thread that records publish requests.

:class:`StubHub` listens on a free port of 127.0.0.1 (``with StubHub() as hub:``; a test
points ``BIJI_WEBSUB_HUB`` at ``hub.url``). It speaks HTTP/1.1 with keep-alive, as hubs do,
so a test can see how many connections the pings came over; it answers ``204 No Content``
(as Google's hub and Superfeedr do) unless a test queues other answers with
:meth:`StubHub.answer`.
"""

from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

from tests.local_server import LocalServer


@dataclass(frozen=True)
class Ping:
    path: str
    content_type: str
    form: dict  # each field's values, in order: {"hub.url": [...], "hub.mode": [...]}
    connection: tuple  # the client's address and port: one per connection

    @property
    def urls(self):
        return self.form.get("hub.url", [])


class StubHub(LocalServer):
    def __init__(self):
        self.pings = []
        self._answers = []
        super().__init__()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_port}/hub"

    def answer(self, *statuses):
        """Answer the next requests with these statuses (then 204 again)."""
        with self._lock:
            self._answers.extend(statuses)

    def pinged_urls(self):
        return [url for ping in self.pings for url in ping.urls]

    def _next_status(self):
        with self._lock:
            return self._answers.pop(0) if self._answers else 204

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                ping = Ping(
                    path=self.path,
                    content_type=self.headers.get("Content-Type", ""),
                    form=parse_qs(body.decode(), keep_blank_values=True),
                    connection=self.client_address,
                )
                with hub._lock:
                    hub.pings.append(ping)
                status = hub._next_status()
                said = b"" if status < 300 else b"not now"
                self.send_response(status)
                self.send_header("Content-Length", str(len(said)))
                self.end_headers()
                self.wfile.write(said)

            def log_message(self, *args):
                pass

        return Handler
