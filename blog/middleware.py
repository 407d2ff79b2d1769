"""Site-wide response policies: security headers Django 5.2 lacks, and the URL decides the
interface language."""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers

ADMIN_PREFIX = "/admin/"

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


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
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
        if request.path_info.startswith(ADMIN_PREFIX):
            language = translation.get_language_from_request(request)
        else:
            language = (
                translation.get_language_from_path(request.path_info) or settings.LANGUAGE_CODE
            )
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        if request.path_info.startswith(ADMIN_PREFIX):
            patch_vary_headers(response, ["Accept-Language"])
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
