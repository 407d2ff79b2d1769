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

    Behind the one reverse proxy the README describes (DJANGO_BEHIND_PROXY=1), the last
    X-Forwarded-For entry is the address that proxy saw; entries before it come from the
    client and could be anything. Otherwise the TCP peer.
    """
    if settings.BIJI_BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
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
