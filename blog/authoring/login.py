"""The admin's login under django-axes: the address a failed attempt counts for, and the page
a locked-out login gets."""

import math

from django.conf import settings
from django.contrib import admin
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import add_never_cache_headers

from blog.text.client_address import client_ip  # noqa: F401 (AXES_CLIENT_IP_CALLABLE)


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
