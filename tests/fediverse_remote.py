"""A remote fediverse server for the tests: a real HTTP server in a thread on 127.0.0.1 that serves
its actors' documents (with their public keys) and records what is posted to their inboxes and
which GETs it was sent, and signs activities as its actors (draft-cavage HTTP signatures, written
here independently of biji's code, the way bovine sends them: ``Digest: sha-256=`` in lower case,
``content-type`` signed too).

A test lists ``remote.host`` in ``BIJI_FEDIVERSE_PRIVATE_HOSTS`` (it is a loopback address, which
biji refuses otherwise) and posts with :meth:`RemoteServer.post` through Django's test client.
"""

import base64
import email.utils
import hashlib
import json
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.local_server import LocalServer

ACTIVITY_JSON = "application/activity+json"
SIGNED_HEADERS = ("(request-target)", "host", "date", "digest", "content-type")


def make_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@dataclass
class Received:
    method: str
    path: str
    headers: dict  # lower-cased names
    body: bytes

    def json(self):
        return json.loads(self.body)


def signing_string(method, path, headers, names) -> bytes:
    lines = []
    for name in names:
        value = f"{method.lower()} {path}" if name == "(request-target)" else headers[name]
        lines.append(f"{name}: {value}")
    return "\n".join(lines).encode()


def signature_fields(header) -> dict:
    fields = {}
    for part in header.split('",'):
        name, _, value = part.partition("=")
        fields[name.strip()] = value.strip().strip('"')
    return fields


def verifies(received: Received, pem: str) -> bool:
    """Whether ``received`` carries a valid signature by ``pem`` over what it lists."""
    fields = signature_fields(received.headers.get("signature", ""))
    names = fields.get("headers", "date").split()
    key = serialization.load_pem_public_key(pem.encode())
    try:
        key.verify(
            base64.b64decode(fields["signature"]),
            signing_string(received.method, received.path, received.headers, names),
            padding.PKCS1v15(),
            hashes.SHA256(),
        )
    except Exception:
        return False
    return True


class RemoteServer(LocalServer):
    """``with RemoteServer(key) as remote:`` serves /users/<name> for any name."""

    def __init__(self, key=None):
        self.key = key or make_key()
        self.received: list[Received] = []
        self.inbox_status = 202
        self.redirect_to = None  # a URL every GET is redirected to, when set
        super().__init__()

    def actor_id(self, name="alice"):
        return f"http://{self.host}/users/{name}"

    def key_id(self, name="alice"):
        return self.actor_id(name) + "#main-key"

    def inbox(self, name="alice"):
        return self.actor_id(name) + "/inbox"

    def actor_document(self, name):
        actor = self.actor_id(name)
        return {
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": actor,
            "type": "Person",
            "preferredUsername": name,
            "inbox": self.inbox(name),
            "outbox": actor + "/outbox",
            "endpoints": {"sharedInbox": f"http://{self.host}/inbox"},
            "publicKey": {
                "id": self.key_id(name),
                "owner": actor,
                "publicKeyPem": public_pem(self.key),
            },
        }

    def gets(self):
        return [request for request in self.received if request.method == "GET"]

    def posts(self):
        return [request for request in self.received if request.method == "POST"]

    def activity(self, kind, name="alice", **fields):
        return {
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": f"http://{self.host}/activities/{uuid.uuid4()}",
            "type": kind,
            "actor": self.actor_id(name),
            **fields,
        }

    def signed_headers(
        self,
        path,
        body,
        *,
        name="alice",
        key=None,
        key_id=None,
        date=None,
        host="testserver",
        digest=None,
    ):
        """The headers a POST of ``body`` to ``path`` on biji carries, signed as actor ``name``;
        each may be given wrong on purpose."""
        headers = {
            "host": host,
            "date": date or email.utils.formatdate(usegmt=True),
            "digest": digest
            or "sha-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode(),
            "content-type": ACTIVITY_JSON,
        }
        signature = (key or self.key).sign(
            signing_string("POST", path, headers, SIGNED_HEADERS),
            padding.PKCS1v15(),
            hashes.SHA256(),
        )
        headers["signature"] = (
            f'keyId="{key_id or self.key_id(name)}",algorithm="hs2019",'
            f'headers="{" ".join(SIGNED_HEADERS)}",'
            f'signature="{base64.b64encode(signature).decode()}"'
        )
        return headers

    def post(self, client, path, activity, *, body=None, content_length=None, **signing):
        """POST ``activity`` (or the raw ``body``) to biji's ``path``, signed (see
        :meth:`signed_headers`); ``content_length``: another length than the body's."""
        body = body if body is not None else json.dumps(activity).encode()
        headers = self.signed_headers(path, body, **signing)
        extra = {f"HTTP_{name.upper().replace('-', '_')}": value for name, value in headers.items()}
        del extra["HTTP_CONTENT_TYPE"], extra["HTTP_HOST"]
        if content_length is not None:
            extra["CONTENT_LENGTH"] = str(content_length)
        return client.generic(
            "POST",
            path,
            body,
            content_type=headers["content-type"],
            HTTP_HOST=headers["host"],
            **extra,
        )

    def _record(self, handler, body=b""):
        received = Received(
            handler.command,
            handler.path,
            {name.lower(): value for name, value in handler.headers.items()},
            body,
        )
        with self._lock:
            self.received.append(received)

    def _handler(self):
        remote = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self, status, document=None):
                body = json.dumps(document).encode() if document is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", ACTIVITY_JSON)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                remote._record(self)
                if remote.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", remote.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                parts = self.path.strip("/").split("/")
                if len(parts) == 2 and parts[0] == "users":
                    self._answer(200, remote.actor_document(parts[1]))
                else:
                    self._answer(404, {"error": "not found"})

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                remote._record(self, body)
                self._answer(remote.inbox_status)

            def log_message(self, *args):
                pass

        return Handler
