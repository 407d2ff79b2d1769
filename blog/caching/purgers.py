"""The edge caches biji can purge by key: Varnish with varnish-modules' xkey, Fastly, Cloudflare.

Each purger takes keys (the parts' names, :mod:`blog.caching.edge`) and raises
:class:`PurgeFailed` when the edge did not confirm, so the background runner tries again. Every
request has a time bound (:data:`TIMEOUT`) and carries a bounded number of keys, cut into the
batches each edge accepts.
"""

import json
import urllib.error
import urllib.request

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

TIMEOUT = 10  # seconds a purge request may take
FASTLY_API = "https://api.fastly.com"
CLOUDFLARE_API = "https://api.cloudflare.com/client/v4"


def batched(keys, size):
    keys = list(keys)
    return [keys[start : start + size] for start in range(0, len(keys), size)]


class PurgeFailed(Exception):
    """The edge did not confirm a purge (refused, unreachable, or an answer not understood)."""


def _http(url, setting):
    if not url.startswith(("http://", "https://")):
        raise ImproperlyConfigured(f"{setting}: {url!r} is no http:// or https:// address.")
    return url


def _send(request, what):
    """The response body of ``request``; :class:`PurgeFailed` for anything but a 2xx."""
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 (settings' URLs)
            return response.read(65536)
    except urllib.error.HTTPError as error:
        body = error.read(500).decode("utf-8", "replace")
        raise PurgeFailed(f"{what} answered {error.code}: {body.strip()[:200]}") from error
    except (urllib.error.URLError, OSError) as error:
        raise PurgeFailed(f"{what} unreachable: {error}") from error


class NoPurger:
    """No edge to tell (``BIJI_EDGE_PURGER=none``): pages leave shared caches by ``s-maxage``."""

    name = "none"

    def purge(self, keys):
        return 0


class VarnishPurger:
    """A ``PURGE`` request to each Varnish, naming the keys in ``xkey-purge`` (the VCL biji ships,
    config/varnish/biji.vcl, answers it for addresses in its ``purgers`` ACL)."""

    name = "varnish"
    batch = 100  # keys a request: the header stays far under Varnish's 8 KB header limit

    def __init__(self, urls):
        if not urls:
            raise ImproperlyConfigured(
                "BIJI_EDGE_PURGER=varnish needs BIJI_EDGE_PURGE_URLS: each Varnish's address "
                "(http://127.0.0.1:6081/, say), separated by commas."
            )
        self.urls = [_http(url, "BIJI_EDGE_PURGE_URLS") for url in urls]

    def purge(self, keys):
        for url in self.urls:
            for chunk in batched(keys, self.batch):
                request = urllib.request.Request(  # noqa: S310 (http(s): _http)
                    url, method="PURGE", headers={"xkey-purge": " ".join(chunk)}
                )
                _send(request, f"Varnish at {url}")
        return len(keys)


class ApiPurger:
    """A CDN's purge API: one POST per batch of keys to the service's (zone's) purge address,
    with an API token."""

    name = batch = api = service_is = token_needs = path = None

    def __init__(self, service, token, api=None):
        if not service or not token:
            raise ImproperlyConfigured(
                f"BIJI_EDGE_PURGER={self.name} needs BIJI_EDGE_SERVICE ({self.service_is}) and "
                f"BIJI_EDGE_API_TOKEN ({self.token_needs})."
            )
        base = _http(api or self.api, "BIJI_EDGE_API_URL").rstrip("/")
        self.url, self.token = base + self.path.format(service=service), token

    def purge(self, keys):
        for chunk in batched(keys, self.batch):
            request = urllib.request.Request(  # noqa: S310 (http(s): _http)
                self.url, method="POST", **self.request_of(chunk)
            )
            self.check(_send(request, self.name.capitalize()))
        return len(keys)

    def check(self, body):
        """Raise :class:`PurgeFailed` if the answer's body says the purge was refused."""


class FastlyPurger(ApiPurger):
    """Fastly's purge by surrogate key: up to 256 keys a request."""

    name, batch, api, path = "fastly", 256, FASTLY_API, "/service/{service}/purge"
    service_is, token_needs = "the service id", "a token with purge_select scope"

    def request_of(self, chunk):
        return {
            "headers": {
                "Fastly-Key": self.token,
                "Surrogate-Key": " ".join(chunk),
                "Accept": "application/json",
            }
        }


class CloudflarePurger(ApiPurger):
    """Cloudflare's purge by cache tag: 30 tags a request (the limit every plan allows)."""

    name, batch, api, path = "cloudflare", 30, CLOUDFLARE_API, "/zones/{service}/purge_cache"
    service_is, token_needs = "the zone id", "a token with Cache Purge permission"

    def request_of(self, chunk):
        return {
            "data": json.dumps({"tags": list(chunk)}).encode(),
            "headers": {
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
            },
        }

    def check(self, body):
        try:
            answer = json.loads(body)
        except ValueError as error:
            raise PurgeFailed(f"Cloudflare answered no JSON: {body[:200]!r}") from error
        if not answer.get("success"):
            raise PurgeFailed(f"Cloudflare refused the purge: {answer.get('errors')}")


PURGERS = ("none", "varnish", "fastly", "cloudflare")


def configured():
    """The purger ``BIJI_EDGE_PURGER`` names, made from the settings."""
    name = settings.BIJI_EDGE_PURGER
    if name == "varnish":
        return VarnishPurger(settings.BIJI_EDGE_PURGE_URLS)
    if name in ("fastly", "cloudflare"):
        kind = FastlyPurger if name == "fastly" else CloudflarePurger
        return kind(
            settings.BIJI_EDGE_SERVICE, settings.BIJI_EDGE_API_TOKEN, settings.BIJI_EDGE_API_URL
        )
    return NoPurger()
