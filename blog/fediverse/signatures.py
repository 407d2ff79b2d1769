"""HTTP signatures as Mastodon signs and checks them (draft-cavage-http-signatures, rsa-sha256):
docs.joinmastodon.org/spec/security. Outgoing requests sign ``(request-target) host date`` and,
with a body, its ``digest``; incoming ones are verified over whatever ``headers=`` lists, which
must cover at least the same (bovine adds ``content-type``)."""

import base64
import binascii
import email.utils
import hashlib
import hmac
import re
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from django.conf import settings
from django.utils import timezone

SIGNED = ("(request-target)", "host", "date")
PARAMETER = re.compile(r'\s*([A-Za-z]+)\s*=\s*"([^"]*)"\s*(?:,|$)')
# hs2019 names no algorithm: for an RSA key it is rsa-sha256 (what Mastodon does).
ALGORITHMS = {"rsa-sha256", "hs2019"}


class SignatureRejected(Exception):
    """The request's signature, digest or date does not hold: answered 401."""


def body_digest(body: bytes) -> str:
    return "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii")


def http_date(when=None) -> str:
    return email.utils.format_datetime(when or timezone.now(), usegmt=True)


def _request_target(method, url) -> str:
    parts = urlsplit(url)
    return f"{method.lower()} {parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")


def sign_headers(method, url, body: bytes | None, key_id, private_key_pem) -> dict:
    """The headers that sign a request: Date, Host, Digest (with a body) and Signature."""
    headers = {"Host": urlsplit(url).netloc, "Date": http_date()}
    names = list(SIGNED)
    if body is not None:
        headers["Digest"] = body_digest(body)
        names.append("digest")
    values = {"(request-target)": _request_target(method, url)}
    values.update((name.lower(), value) for name, value in headers.items())
    signing_string = "\n".join(f"{name}: {values[name]}" for name in names)
    key = serialization.load_pem_private_key(private_key_pem.encode("ascii"), password=None)
    signature = key.sign(signing_string.encode("utf-8"), padding.PKCS1v15(), hashes.SHA256())
    headers["Signature"] = (
        f'keyId="{key_id}",algorithm="rsa-sha256",headers="{" ".join(names)}",'
        f'signature="{base64.b64encode(signature).decode("ascii")}"'
    )
    return headers


def signature_parameters(header) -> dict:
    """``keyId="…",headers="…",signature="…"`` as a dict; SignatureRejected if malformed."""
    if header.lower().startswith("signature "):  # the Authorization: Signature form
        header = header[len("signature ") :]
    parameters, position = {}, 0
    while position < len(header):
        match = PARAMETER.match(header, position)
        if match is None:
            raise SignatureRejected("malformed Signature header")
        parameters[match.group(1)] = match.group(2)
        position = match.end()
    for required in ("keyId", "signature"):
        if not parameters.get(required):
            raise SignatureRejected(f"the Signature header has no {required}")
    return parameters


def key_id_of(request) -> str:
    """The keyId a request is signed with (to know whose key to fetch before verifying)."""
    header = request.headers.get("Signature") or request.headers.get("Authorization") or ""
    if not header:
        raise SignatureRejected("the request is not signed")
    return signature_parameters(header)["keyId"]


def verify_request(request, fetch_key, *, body=None) -> str:
    """Check ``request``'s signature (a Django request, or anything with ``method``,
    ``headers``, ``get_full_path()`` and ``body``) with the public key PEM ``fetch_key(key_id)``
    returns; its Digest against the body and its Date against the clock. Returns the key id;
    raises :class:`SignatureRejected`."""
    header = request.headers.get("Signature") or request.headers.get("Authorization") or ""
    if not header:
        raise SignatureRejected("the request is not signed")
    parameters = signature_parameters(header)
    algorithm = parameters.get("algorithm", "hs2019").lower()
    if algorithm not in ALGORITHMS:
        raise SignatureRejected(f"unsupported signature algorithm {algorithm}")
    names = parameters.get("headers", "date").lower().split()
    body = request.body if body is None else body
    needed = [*SIGNED, "digest"] if body else list(SIGNED)
    missing = [name for name in needed if name not in names]
    if missing:
        raise SignatureRejected(f"the signature does not cover {', '.join(missing)}")
    _check_date(request.headers.get("Date", ""))
    if body:
        _check_digest(request.headers.get("Digest", ""), body)
    signing_string = _signing_string(request, names)
    try:
        signature = base64.b64decode(parameters["signature"], validate=True)
    except (binascii.Error, ValueError):
        raise SignatureRejected("the signature is not base64") from None
    key_id = parameters["keyId"]
    public_key = _public_key(fetch_key(key_id))
    try:
        public_key.verify(signature, signing_string, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        raise SignatureRejected("the signature does not match") from None
    return key_id


def _signing_string(request, names) -> bytes:
    lines = []
    for name in names:
        if name == "(request-target)":
            value = f"{request.method.lower()} {request.get_full_path()}"
        else:
            value = request.headers.get(name)
            if value is None:
                raise SignatureRejected(f"the signed header {name} is missing")
        lines.append(f"{name}: {value}")
    return "\n".join(lines).encode("utf-8")


def _check_date(value):
    try:
        sent = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        raise SignatureRejected("the Date header is missing or malformed") from None
    if sent is None or sent.tzinfo is None:
        raise SignatureRejected("the Date header is missing or malformed")
    skew = abs((timezone.now() - sent).total_seconds())
    if skew > settings.BIJI_FEDIVERSE_SIGNATURE_SKEW:
        raise SignatureRejected(f"the Date is {int(skew)} s away from the clock")


def _check_digest(value, body):
    """``Digest: SHA-256=…`` (any case of the name, among others) matches the body."""
    expected = body_digest(body).split("=", 1)[1]
    for part in value.split(","):
        algorithm, _, encoded = part.strip().partition("=")
        if algorithm.lower() == "sha-256":
            if hmac.compare_digest(encoded.strip(), expected):
                return
            raise SignatureRejected("the Digest does not match the body")
    raise SignatureRejected("the request has no SHA-256 Digest")


def _public_key(pem):
    try:
        key = serialization.load_pem_public_key(str(pem).encode("ascii"))
    except (ValueError, TypeError, UnicodeEncodeError):
        raise SignatureRejected("the signer's public key cannot be read") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise SignatureRejected("the signer's key is not an RSA key")
    return key
