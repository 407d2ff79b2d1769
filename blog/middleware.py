"""Site-wide response policies: security headers Django 5.2 lacks, the URL decides the
interface language, and the page a locked-out login gets (django-axes)."""

import math

from django.conf import settings
from django.contrib import admin
from django.middleware.locale import LocaleMiddleware
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import add_never_cache_headers, patch_vary_headers


def admin_prefix():
    """The admin's path, ``/admin/`` unless ``BIJI_ADMIN_PATH`` says otherwise."""
    return "/" + settings.BIJI_ADMIN_PATH


# One constant policy: biji's pages carry no inline script, so scripts come from 'self' only.
# Inline style attributes are allowed for the Django admin, which still uses a few.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: https:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

# Powerful browser features no biji page uses, refused to the page and to anything it embeds.
# Only feature names Chromium and Firefox know, so browsers log no warning about the header.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "serial",
        "usb",
    )
)


class ContentSecurityPolicyMiddleware:
    """Content-Security-Policy and Permissions-Policy on every response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class URLLocaleMiddleware(LocaleMiddleware):
    """The public site's language comes from its URL alone: ``/…`` is Chinese, ``/en/…`` English.

    Django's LocaleMiddleware marks every unprefixed response ``Vary: Accept-Language``, which
    splits what a cache or CDN can share, although with ``prefix_default_language=False`` the
    language of such a URL never depends on it. Here neither header nor cookie changes a public
    response, feeds and sitemap included. The admin instead follows the author's browser
    language (or the language cookie), which Django would pin to the default language.
    """

    def process_request(self, request):
        if request.path_info.startswith(admin_prefix()):
            language = translation.get_language_from_request(request)
        else:
            language = (
                translation.get_language_from_path(request.path_info) or settings.LANGUAGE_CODE
            )
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        if request.path_info.startswith(admin_prefix()):
            patch_vary_headers(response, ["Accept-Language"])
        response.headers.setdefault("Content-Language", translation.get_language())
        return response


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
