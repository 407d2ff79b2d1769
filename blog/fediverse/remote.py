"""Requests to other servers: fetching a remote actor or key (a signed GET: bovine, like Mastodon in
secure mode, answers 401 to an unsigned one) and posting a signed activity to an inbox.

Every URL passes the SSRF guard first: https only, and no host that resolves to a loopback,
private, link-local or otherwise reserved address, unless its ``host:port`` is one of
BIJI_FEDIVERSE_PRIVATE_HOSTS (test peers, which may also use plain http). The connection goes to
the address that was checked (a second DNS answer cannot move it), redirects are followed only
on the same origin, and an answer is read within the timeout and up to a size cap.
"""

import http.client
import ipaddress
import json
import socket
import ssl
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from django.conf import settings

from blog.fediverse.signatures import sign_headers

ACCEPT = (
    "application/activity+json, "
    'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
)
MAX_REDIRECTS = 3
CHUNK = 64 * 1024


class RemoteError(Exception):
    """A remote request that did not give an answer to use."""


class Refused(RemoteError):
    """The URL is not one biji connects to (the SSRF guard): no connection was made."""


class Unavailable(RemoteError, ConnectionError):
    """The server could not be reached, was too slow, or answered too much (retried)."""


@dataclass
class Answer:
    status: int
    headers: dict = field(default_factory=dict)
    body: bytes = b""

    def json(self):
        try:
            document = json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            raise RemoteError("the answer is not JSON") from None
        if not isinstance(document, dict):
            raise RemoteError("the answer is not a JSON object")
        return document


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    addresses: tuple  # the checked IP addresses the connection may go to, in DNS's order

    @property
    def origin(self):
        return (self.scheme, self.host, self.port)


def origin_of(url) -> str:
    """``host`` or ``host:port`` as a URL names it, lower-cased: what blocks and throttles count."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return ""
    return f"{host}:{port}" if port else host


def _private_allowed(host, port) -> bool:
    return f"{host}:{port}" in settings.BIJI_FEDIVERSE_PRIVATE_HOSTS


def _public(address) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_url(url) -> Target:
    """Where ``url`` may be fetched from, or :class:`Refused` before any connection."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        raise Refused(f"not a URL: {url!r}") from None
    if not host or parts.username is not None or parts.password is not None:
        raise Refused(f"no host, or credentials in the URL: {url!r}")
    if parts.scheme not in ("https", "http"):
        raise Refused(f"{parts.scheme or 'no'} scheme: {url!r}")
    port = port or (443 if parts.scheme == "https" else 80)
    private_allowed = _private_allowed(host, port)
    if parts.scheme == "http" and not private_allowed:
        raise Refused(f"plain http: {url!r}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise Unavailable(f"{host} does not resolve: {error}") from None
    addresses = tuple(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise Unavailable(f"{host} does not resolve")
    if not private_allowed:
        refused = [address for address in addresses if not _public(address)]
        if refused:
            raise Refused(f"{host} resolves to a non-public address ({refused[0]})")
    return Target(parts.scheme, host, port, addresses)


def _connect(target, timeout):
    """A socket to the first of the checked addresses that answers (``localhost`` may be
    ``::1`` first while the server listens on 127.0.0.1 only)."""
    error = None
    for address in target.addresses:
        try:
            return socket.create_connection((address, target.port), timeout)
        except OSError as failed:
            error = failed
    raise error


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, target, timeout):
        super().__init__(target.host, target.port, timeout=timeout)
        self.target = target

    def connect(self):
        self.sock = _connect(self.target, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, target, timeout):
        # The default context: the system's CAs, or SSL_CERT_FILE's (the tests' own CA).
        context = ssl.create_default_context()
        super().__init__(target.host, target.port, timeout=timeout, context=context)
        self.target = target

    def connect(self):
        sock = _connect(self.target, self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def _connection(target, timeout):
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    return kind(target, timeout)


def request(method, url, *, body=None, headers=None, signer=None, timeout=None, max_bytes=None):
    """One request to ``url`` (through the guard), signed with ``signer``: (key id, private PEM).
    Same-origin redirects of a GET are followed. Returns an :class:`Answer`; raises
    :class:`Refused` or :class:`Unavailable`."""
    timeout = timeout or settings.BIJI_FEDIVERSE_FETCH_TIMEOUT
    max_bytes = max_bytes or settings.BIJI_FEDIVERSE_FETCH_MAX_BYTES
    deadline = time.monotonic() + timeout * 2
    target = check_url(url)
    for _ in range(MAX_REDIRECTS + 1):
        answer = _once(method, url, target, body, headers, signer, timeout, max_bytes, deadline)
        location = answer.headers.get("location")
        if method != "GET" or answer.status not in (301, 302, 303, 307, 308) or not location:
            return answer
        next_url = urljoin(url, location)
        next_target = check_url(next_url)
        if next_target.origin != target.origin:
            raise Refused(f"{url} redirects to another host ({origin_of(next_url)})")
        url, target = next_url, next_target
    raise Unavailable(f"{url}: too many redirects")


def _once(method, url, target, body, headers, signer, timeout, max_bytes, deadline):
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    sent = {
        "Accept": ACCEPT,
        "User-Agent": f"biji (+{settings.SITE_URL})",
        "Host": parts.netloc,
    }
    sent.update(headers or {})
    if signer is not None:
        key_id, private_pem = signer
        sent.update(sign_headers(method, url, body, key_id, private_pem))
    connection = _connection(target, timeout)
    try:
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        length = response.getheader("Content-Length")
        if length and length.isdigit() and int(length) > max_bytes:
            raise Unavailable(f"{url}: the answer is {length} bytes, more than {max_bytes}")
        chunks, size = [], 0
        while True:
            if time.monotonic() > deadline:
                raise Unavailable(f"{url}: the answer took too long")
            chunk = response.read(CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise Unavailable(f"{url}: the answer is more than {max_bytes} bytes")
            chunks.append(chunk)
        answer_headers = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, answer_headers, b"".join(chunks))
    except Unavailable:
        raise
    except (OSError, http.client.HTTPException) as error:
        raise Unavailable(f"{url}: {error!r}") from None
    finally:
        connection.close()


def fetch_json(url, *, signer=None) -> dict:
    """The JSON object at ``url`` (an actor, a key), fetched with a signed GET."""
    answer = request("GET", url.split("#", 1)[0], signer=signer)
    if answer.status in (404, 410):
        raise RemoteError(f"{url}: {answer.status} gone")
    if answer.status >= 500 or answer.status == 429:
        raise Unavailable(f"{url}: {answer.status}")
    if answer.status != 200:
        raise RemoteError(f"{url}: {answer.status}")
    return answer.json()


def post_json(url, document, *, signer, timeout=None) -> Answer:
    """POST ``document`` as an activity to the inbox at ``url``, signed with ``signer``."""
    body = json.dumps(document, ensure_ascii=False).encode("utf-8")
    headers = {"Content-Type": "application/activity+json"}
    return request("POST", url, body=body, headers=headers, signer=signer, timeout=timeout)
