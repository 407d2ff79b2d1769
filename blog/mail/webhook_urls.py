"""The mail providers' tracking webhooks, 404 until ``ANYMAIL["WEBHOOK_SECRET"]`` is set (or anyone
could mark a reader bounced), and then 400, never 500, on a bad request.

May import: nothing of biji's.
"""

import logging
from functools import wraps

from anymail import urls as anymail_urls
from anymail.exceptions import AnymailAPIError, AnymailConfigurationError
from anymail.utils import get_request_basic_auth
from django.conf import settings
from django.http import Http404, HttpResponseBadRequest
from django.urls import path
from django.utils.crypto import constant_time_compare

app_name = "anymail"
logger = logging.getLogger(__name__)

# What a provider's parser raises on a body it cannot read (anymail's own error for one, and
# the JSON, key and type errors of its parsing code). The tracking receiver's own failures
# (the database away) are none of these: they stay a 500, which providers retry.
UNREADABLE = (AnymailAPIError, ValueError, KeyError, IndexError, TypeError, AttributeError)


def webhook_secrets():
    """The ``user:password`` strings a webhook may log in with (none: the webhooks are off)."""
    secret = (getattr(settings, "ANYMAIL", None) or {}).get("WEBHOOK_SECRET") or getattr(
        settings, "ANYMAIL_WEBHOOK_SECRET", None
    )
    if not secret:
        return []
    return [secret] if isinstance(secret, str) else [s for s in secret if s]


def authorised(request, secrets):
    given = get_request_basic_auth(request)
    # Every secret compared: the time taken says nothing of which came close.
    matches = [constant_time_compare(given or "", secret) for secret in secrets]
    return given is not None and any(matches)


def guarded(view, name):
    """``view`` (a provider's webhook) answering as the module docstring says."""

    @wraps(view)
    def webhook(request, *args, **kwargs):
        secrets = webhook_secrets()
        if not secrets:
            raise Http404("No webhook secret is configured.")
        if not authorised(request, secrets):
            return HttpResponseBadRequest(
                "Missing or wrong credentials.", content_type="text/plain; charset=utf-8"
            )
        try:
            return view(request, *args, **kwargs)
        except AnymailConfigurationError as error:
            logger.error("The %s webhook is not set up: %s", name, error)
            raise Http404("This webhook is not set up.") from None
        except UNREADABLE as error:
            logger.warning("The %s webhook could not read a request: %r", name, error)
            return HttpResponseBadRequest(
                "The request is not one this webhook reads.",
                content_type="text/plain; charset=utf-8",
            )

    return webhook  # wraps() keeps the view's csrf_exempt


urlpatterns = [
    path(str(pattern.pattern), guarded(pattern.callback, pattern.name), name=pattern.name)
    for pattern in anymail_urls.urlpatterns
    if pattern.name and pattern.name.endswith("_tracking_webhook")
]
