"""The admin's login under django-axes: which address a failed attempt counts for, and the
page a locked-out login gets (``AXES_CLIENT_IP_CALLABLE``, ``AXES_LOCKOUT_CALLABLE``)."""

import math

from django.conf import settings
from django.contrib import admin
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import add_never_cache_headers


def client_ip(request):
    """The address login attempts are counted for (django-axes' AXES_CLIENT_IP_CALLABLE).

    Behind reverse proxies (DJANGO_BEHIND_PROXY=1), each appends the address it received the
    request from to X-Forwarded-For, so the entry ``BIJI_TRUSTED_PROXIES`` hops from the right
    is the one the outermost trusted proxy saw; entries further left come from the client and
    could be anything (rotated to dodge the lockout, or a victim's address to lock them out). A
    header with fewer entries did not pass through every proxy: the TCP peer counts, as it does
    without a proxy. This holds only if nothing but the proxy can reach the server (gunicorn
    bound to 127.0.0.1 or a unix socket: docs/deployment.md).
    """
    if settings.BIJI_BEHIND_PROXY:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        trusted = settings.BIJI_TRUSTED_PROXIES
        if len(hops) >= trusted and hops[-trusted]:
            return hops[-trusted]
    return request.META.get("REMOTE_ADDR", "")


def login_locked_out(request, original_response=None, credentials=None):
    """django-axes' AXES_LOCKOUT_CALLABLE: a translated 429 page, never cached."""
    cooloff = settings.AXES_COOLOFF_TIME
    minutes = max(1, math.ceil(cooloff.total_seconds() / 60))
    context = {
        **admin.site.each_context(request),
        "title": translation.gettext("Too many failed logins"),
        "minutes": minutes,
    }
    response = render(request, "axes/lockout.html", context, status=429)
    response["Retry-After"] = str(int(cooloff.total_seconds()))
    add_never_cache_headers(response)
    return response
