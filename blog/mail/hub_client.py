"""Telling a WebSub hub that feeds changed, one feed per request (many hubs read one ``hub.url``)
over one connection. :class:`HubUnavailable` is retried; :class:`HubRefused` is not."""

import http.client
from urllib.parse import urlencode, urlsplit

from django.conf import settings

TIMEOUT = 10  # seconds to connect, and to wait for each answer
ANSWER_SHOWN = 200  # characters of a refusal kept in the error


class HubUnavailable(ConnectionError):
    """The hub could not be reached or asked to come back later: retried."""


class HubRefused(Exception):
    """The hub answered that it will not take the ping: not retried."""


def publish(hub, feed_urls, *, timeout=TIMEOUT):
    """Tell ``hub`` that each of ``feed_urls`` changed, one request each over one connection.
    Returns the number accepted (all, or it raises)."""
    connection = _connection(hub, timeout)
    path = _request_path(hub)
    unavailable, refused = [], []
    try:
        for feed_url in feed_urls:
            try:
                status, said = _post(connection, path, feed_url)
            except (OSError, http.client.HTTPException) as error:
                # A network error or timeout: the hub is away; the rest would wait as long.
                raise HubUnavailable(f"{hub} did not answer for {feed_url}: {error!r}") from error
            if 200 <= status < 300:
                continue
            answer = f"{feed_url}: {status} {said}"
            (unavailable if status >= 500 or status == 429 else refused).append(answer)
    finally:
        connection.close()
    if unavailable:
        raise HubUnavailable(f"{hub} is unavailable: " + "; ".join(unavailable + refused))
    if refused:
        raise HubRefused(f"{hub} refused: " + "; ".join(refused))
    return len(feed_urls)


def _connection(hub, timeout):
    parts = urlsplit(hub)
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port or 443, timeout=timeout)
    return http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)


def _request_path(hub):
    parts = urlsplit(hub)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _post(connection, path, feed_url):
    """One publish request: its status and what the hub said. Sent again once on a fresh
    connection when the kept one turns out closed (a hub may drop an idle connection)."""
    try:
        return _send(connection, path, feed_url)
    except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
        connection.close()  # the next request opens a new one
        return _send(connection, path, feed_url)


def _send(connection, path, feed_url):
    body = urlencode({"hub.mode": "publish", "hub.url": feed_url})
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "User-Agent": f"biji (+{settings.SITE_URL})",
    }
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    # Read to the end, so the connection can carry the next request.
    said = response.read().decode("utf-8", "replace").strip()
    if response.will_close:
        connection.close()
    return response.status, " ".join(filter(None, (response.reason, said)))[:ANSWER_SHOWN]
