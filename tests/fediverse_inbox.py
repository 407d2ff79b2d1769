"""Followers' servers for the delivery tests: a real HTTP server in a thread, on 127.0.0.1, whose
inboxes check each POST's signature with biji's own verifier (blog.fediverse.signatures) against
the actors' public keys, and record what they were sent.

``with InboxServer(public_keys) as server:`` — ``public_keys``: {key id: public PEM}. Every path
takes deliveries: ``server.url("/users/ann/inbox")``. A path answers 202 unless a test says
otherwise (:meth:`InboxServer.answer_always`). A delivery whose signature does not hold is
answered 401 and recorded as not verified.
"""

import json
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from blog.fediverse.signatures import SignatureRejected, verify_request
from tests.local_server import LocalServer


@dataclass(frozen=True)
class Received:
    path: str
    activity: dict
    verified: bool

    @property
    def type(self):
        return self.activity.get("type")

    @property
    def actor(self):
        """The sending actor's name (``…/ap/actors/<name>``)."""
        return self.activity.get("actor", "").rsplit("/", 1)[-1]


class _SignedRequest:
    """What :func:`verify_request` reads of a request, from the handler's."""

    def __init__(self, handler, body):
        self.method = handler.command
        self.headers = handler.headers  # case-insensitive .get, as Django's
        self.body = body
        self._path = handler.path

    def get_full_path(self):
        return self._path


class InboxServer(LocalServer):
    """Its ``host`` is what BIJI_FEDIVERSE_PRIVATE_HOSTS must list."""

    def __init__(self, public_keys):
        self.public_keys = dict(public_keys)
        self.received = []
        self._statuses = {}
        super().__init__()

    def url(self, path):
        return f"http://{self.host}{path}"

    def answer_always(self, path, status):
        with self._lock:
            self._statuses[path] = status

    def got(self, path=None):
        """``[(type, actor name)]`` delivered to ``path`` (every path: ``(path, type, actor)``),
        in order."""
        with self._lock:
            if path is None:
                return [(r.path, r.type, r.actor) for r in self.received]
            return [(r.type, r.actor) for r in self.received if r.path == path]

    def clear(self):
        with self._lock:
            self.received.clear()

    def _handler(self):
        inboxes = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    verify_request(_SignedRequest(self, body), inboxes.public_keys.__getitem__)
                    verified = True
                except (SignatureRejected, KeyError):
                    verified = False
                with inboxes._lock:
                    inboxes.received.append(Received(self.path, json.loads(body), verified))
                    status = inboxes._statuses.get(self.path, 202) if verified else 401
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        return Handler
