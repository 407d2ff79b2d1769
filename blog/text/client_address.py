"""Which address a request came from: behind proxies, the X-Forwarded-For entry
``BIJI_TRUSTED_PROXIES`` hops from the right, as entries further left are the client's to forge."""

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
