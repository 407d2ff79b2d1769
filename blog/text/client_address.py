"""Which address a request came from, for counting requests per client (the admin's login
lockout, the subscribe form's throttle): one rule, below both.

Behind reverse proxies (``DJANGO_BEHIND_PROXY=1``), each appends the address it received the
request from to X-Forwarded-For, so the entry ``BIJI_TRUSTED_PROXIES`` hops from the right is
the one the outermost trusted proxy saw; entries further left come from the client and could
be anything (rotated to dodge a limit, or a victim's address to lock them out). A header with
fewer entries did not pass through every proxy: the TCP peer counts, as it does without a
proxy. This holds only if nothing but the proxy can reach the server (gunicorn bound to
127.0.0.1 or a unix socket: docs/deployment.md).
"""

import ipaddress

from django.conf import settings


def client_ip(request) -> str:
    """The client's address as the outermost trusted proxy (or the TCP peer) saw it."""
    if settings.BIJI_BEHIND_PROXY:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        trusted = settings.BIJI_TRUSTED_PROXIES
        if len(hops) >= trusted and hops[-trusted]:
            return hops[-trusted]
    return request.META.get("REMOTE_ADDR", "")


def client_network(request) -> str:
    """What to count a client's requests by: its IPv4 address, or its IPv6 /64 (one
    subscriber line gets a whole /64, so single IPv6 addresses are free to rotate)."""
    address = client_ip(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is 192.0.2.1
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))
