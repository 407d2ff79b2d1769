"""Site-wide response policies: security headers Django 5.2 lacks, and the URL decides the
interface language."""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers


def admin_prefix():
    """The admin's path, ``/admin/`` unless ``BIJI_ADMIN_PATH`` says otherwise."""
    return "/" + settings.BIJI_ADMIN_PATH


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


# Responses no browser renders as a document (nosniff holds them to their type): a policy for
# a document on them is ~420 bytes of headers a script or stylesheet carries for nothing.
NOT_DOCUMENTS = ("text/javascript", "application/javascript", "text/css")


class ContentSecurityPolicyMiddleware:
    """Content-Security-Policy and Permissions-Policy on every response a browser could render
    as a document (a page, a feed, an SVG, an error), not on scripts and stylesheets."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith(NOT_DOCUMENTS):
            return response
        response.headers.setdefault(
            "Content-Security-Policy", settings.BIJI_CONTENT_SECURITY_POLICY
        )
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class URLLocaleMiddleware(LocaleMiddleware):
    """The public site's language comes from its URL alone, without LocaleMiddleware's ``Vary:
    Accept-Language``, which splits shared caches; the admin follows the browser."""

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
