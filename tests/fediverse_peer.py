"""A real fediverse server for the tests: bovine-herd, started once per test run, over HTTPS.

``fediverse_ca`` is a certificate authority the run makes (``cryptography``) and one certificate
it signed for ``localhost`` and ``127.0.0.1``; whoever is given ``fediverse_ca.bundle`` as
``SSL_CERT_FILE`` trusts the servers of the run (urllib, aiohttp), and nothing else.
``fediverse_peer`` is bovine-herd (``tests/fediverse_peer_server.py``, from ``.venv-peer``:
``make fediverse-peer``) on https://localhost:<a free port>, on a SQLite file in a folder of the
run's own, with one user; the test acts as that user through bovine's client API (Moo-Auth-1:
requests signed with an Ed25519 key the store knows as the user's) and reads what the user got
in the peer's own database. The peer is started by the first test that asks for it (~3 s) and
stopped at the end of the run: bovine keeps a remote actor's key for good, so a site under test
keeps its keys for the peer's life.
"""

import base64
import contextlib
import datetime
import hashlib
import ipaddress
import json
import os
import socket
import sqlite3
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

ROOT = Path(__file__).resolve().parent.parent
PEER_PYTHON = ROOT / ".venv-peer" / "bin" / "python"
PEER_SERVER = Path(__file__).with_name("fediverse_peer_server.py")
HANDLE = "peer"
ACTIVITY_JSON = "application/activity+json"
AS_CONTEXT = "https://www.w3.org/ns/activitystreams"
START_SECONDS = 30


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(condition, what, seconds=10, every=0.05, explain=str):
    """``condition()``'s first true value, asked every ``every`` s for ``seconds`` s; else an
    AssertionError saying ``what`` did not happen, with ``explain()`` (the servers' logs)."""
    deadline = time.monotonic() + seconds
    while True:
        if value := condition():
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s\n{explain()}")
        time.sleep(every)


# --- the test CA ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TestCA:
    bundle: Path  # the CA's certificate: what SSL_CERT_FILE names
    cert: Path  # the servers' certificate (localhost, 127.0.0.1)
    key: Path  # its private key

    __test__ = False  # not a test class, whatever its name


def _pem(path, data):
    path.write_bytes(data)
    path.chmod(0o600)
    return path


def make_test_ca(folder):
    """A CA of this run's own and a certificate it signed for localhost, in ``folder``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, server_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "biji test run CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    server = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    return TestCA(
        bundle=_pem(folder / "ca.pem", ca.public_bytes(serialization.Encoding.PEM)),
        cert=_pem(folder / "localhost.pem", server.public_bytes(serialization.Encoding.PEM)),
        key=_pem(
            folder / "localhost.key",
            server_key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        ),
    )


# --- Moo-Auth-1: acting as the peer's user -------------------------------------------------------

_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58btc(data):
    """``data`` in multibase base58btc ("z" and Bitcoin's alphabet), as did:key writes keys."""
    number, digits = int.from_bytes(data, "big"), ""
    while number:
        number, digit = divmod(number, 58)
        digits = _BASE58[digit] + digits
    return "z" + "1" * (len(data) - len(data.lstrip(b"\0"))) + digits


def did_key(public_key):
    """The ``did:key`` of an Ed25519 public key (multicodec 0xed01, then the raw key)."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "did:key:" + base58btc(b"\xed\x01" + raw)


# --- the peer ------------------------------------------------------------------------------------


class Peer:
    """bovine-herd on https://localhost:``port``, its user ``peer`` acted as by the test."""

    def __init__(self, folder, ca):
        self.folder, self.ca = folder, ca
        self.port = free_port()
        self.domain = f"localhost:{self.port}"
        self.handle = f"{HANDLE}@{self.domain}"
        self.database = folder / "peer.sqlite3"
        self.log = folder / "peer.log"
        self.key = ed25519.Ed25519PrivateKey.generate()
        self.did_key = did_key(self.key.public_key())
        self.tls = ssl.create_default_context(cafile=str(ca.bundle))
        self.process = None
        self.actor = None
        self._follows = {}  # the id of each Follow sent: the actor it followed

    # starting and stopping

    def start(self):
        actor_file = self.folder / "actor.json"
        env = dict(
            os.environ,
            PEER_DB_URL=f"sqlite://{self.database}",
            PEER_DOMAIN=self.domain,
            PEER_HANDLE=HANDLE,
            PEER_DID_KEY=self.did_key,
            PEER_CERT=str(self.ca.cert),
            PEER_KEY=str(self.ca.key),
            PEER_ACTOR_FILE=str(actor_file),
            SSL_CERT_FILE=str(self.ca.bundle),  # it fetches sites' actors and keys over HTTPS
            PYTHONUNBUFFERED="1",
        )
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [PEER_PYTHON, PEER_SERVER],
                cwd=self.folder,  # bovine keeps its JSON-LD cache in its working folder
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_until(
            lambda: self._ready(actor_file),
            "the fediverse peer answering its WebFinger",
            seconds=START_SECONDS,
            explain=self.log_tail,
        )
        self.actor = json.loads(actor_file.read_text())
        return self

    def _ready(self, actor_file):
        if self.process.poll() is not None:
            raise AssertionError(f"the fediverse peer exited\n{self.log_tail()}")
        if not actor_file.exists():
            return False
        with contextlib.suppress(OSError):
            return self.webfinger(self.handle)["subject"] == f"acct:{self.handle}"
        return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.kill()  # at once: its store is thrown away (hypercorn takes ~1 s)
            self.process.wait()

    def log_tail(self, lines=60):
        """The end of the peer's log (bovine's INFO lines and hypercorn's access log)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "--- the peer's log (end) ---\n" + "\n".join(text.splitlines()[-lines:])

    # HTTP

    def webfinger(self, handle):
        """The JRD the host of ``handle`` answers for it (unsigned, as anyone asks)."""
        host = handle.rsplit("@", 1)[1]
        query = urllib.parse.urlencode({"resource": f"acct:{handle}"})
        request = urllib.request.Request(f"https://{host}/.well-known/webfinger?{query}")
        with urllib.request.urlopen(request, timeout=10, context=self.tls) as response:  # noqa: S310
            return json.load(response)

    def _as_user(self, method, url, body=None, content_type=ACTIVITY_JSON):
        """A request to the peer signed as its user (Moo-Auth-1); (status, headers, JSON)."""
        parts = urllib.parse.urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = {"host": parts.netloc, "date": formatdate(usegmt=True)}
        fields = [("(request-target)", f"{method.lower()} {target}"), ("host", headers["host"])]
        fields.append(("date", headers["date"]))
        if body is not None:
            digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
            headers["digest"] = f"sha-256={digest}"
            headers["content-type"] = content_type
            fields.append(("digest", headers["digest"]))
        message = "\n".join(f"{name}: {value}" for name, value in fields).encode()
        headers.update(
            {
                "accept": ACTIVITY_JSON,
                "authorization": f"Moo-Auth-1 {self.did_key}",
                "x-moo-signature": base58btc(self.key.sign(message)),
            }
        )
        request = urllib.request.Request(url, data=body, headers=headers, method=method)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=15, context=self.tls) as response:  # noqa: S310
                text = response.read()
                return response.status, response.headers, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise AssertionError(
                f"the peer answered {error.code} to {method} {url}: {error.read()[:500]!r}\n"
                f"{self.log_tail()}"
            ) from error

    def _send(self, activity):
        """``activity`` posted to the user's outbox (the peer delivers it); its id."""
        body = json.dumps({"@context": AS_CONTEXT, "actor": self.actor["id"], **activity})
        status, headers, _ = self._as_user("POST", self.actor["outbox"], body.encode())
        assert status == 201, status
        return headers["location"]

    # what the test does as the peer's user

    def lookup(self, handle):
        """The actor of ``handle`` as the peer finds it: WebFinger on its host, then the
        actor fetched (a signed GET), both done by the peer's server (its proxyUrl)."""
        body = urllib.parse.urlencode({"id": f"acct:{handle}"}).encode()
        proxy = self.actor["endpoints"]["proxyUrl"]
        _, _, actor = self._as_user("POST", proxy, body, "application/x-www-form-urlencoded")
        return actor

    def follow(self, handle):
        """The user follows ``handle`` (looked up by WebFinger); the Follow's id."""
        followed = self.lookup(handle)["id"]
        follow_id = self._send({"type": "Follow", "object": followed, "to": [followed]})
        self._follows[follow_id] = followed
        return follow_id

    def undo_follow(self, follow_id):
        """The user undoes the Follow ``follow_id`` (naming it by id, as bovine does)."""
        followed = self._follows.pop(follow_id)
        return self._send({"type": "Undo", "object": follow_id, "to": [followed]})

    # what the peer's user got, read in the peer's own database

    def _query(self, sql, *parameters):
        with contextlib.closing(
            sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=10)
        ) as database:
            return database.execute(sql, parameters).fetchall()

    def inbox_items(self):
        """The activities in the user's inbox, oldest first, as the peer stored them (an
        activity's object by its id when the peer stored the object apart: :meth:`stored`)."""
        rows = self._query(
            "SELECT s.content FROM collectionitem c JOIN storedjsonobject s"
            " ON s.id = c.object_id WHERE c.part_of = ? ORDER BY c.id",
            self.actor["inbox"],
        )
        return [json.loads(content) for (content,) in rows]

    def following(self):
        """The ids of the actors the user follows, as the peer lists them (an Accept adds one;
        an Undo of the Follow takes it off)."""
        rows = self._query(
            "SELECT object_id FROM collectionitem WHERE part_of = ? ORDER BY id",
            self.actor["following"],
        )
        return [object_id for (object_id,) in rows]

    def stored(self, object_id):
        """The object ``object_id`` as the peer keeps it (an Article as last updated), or None."""
        rows = self._query("SELECT content FROM storedjsonobject WHERE id = ?", object_id)
        return json.loads(rows[0][0]) if rows else None


@pytest.fixture(scope="session")
def fediverse_ca(tmp_path_factory):
    """The run's test CA and a certificate for localhost (:class:`TestCA`)."""
    return make_test_ca(tmp_path_factory.mktemp("fediverse-ca"))


@pytest.fixture(scope="session")
def fediverse_peer(tmp_path_factory, fediverse_ca):
    """bovine-herd on https://localhost:<port>, once per run (:class:`Peer`)."""
    if not PEER_PYTHON.exists():
        pytest.fail(f"the fediverse peer is not installed ({PEER_PYTHON}): run make fediverse-peer")
    peer = Peer(tmp_path_factory.mktemp("fediverse-peer"), fediverse_ca)
    try:
        yield peer.start()
    finally:
        peer.stop()
