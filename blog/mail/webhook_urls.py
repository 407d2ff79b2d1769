"""The mail providers' tracking webhooks (django-anymail's views), open only behind a secret.

Without ``ANYMAIL["WEBHOOK_SECRET"]`` anymail's views accept any POST (with a warning), and
anyone could report a reader's address as bounced and stop their email: so each view here
answers 404 until the secret is set, and then anymail checks it on every request (HTTP basic
auth: the provider's webhook URL is ``https://user:password@host/anymail/<provider>/tracking/``).
Only tracking webhooks are mounted; biji receives no mail. Mounted at ``anymail/`` by
``config/urls.py``, outside the language prefixes; the page cache never answers a POST.
"""

from functools import wraps

from anymail import urls as anymail_urls
from django.conf import settings
from django.http import Http404
from django.urls import path

app_name = "anymail"


def webhook_secret():
    return (getattr(settings, "ANYMAIL", None) or {}).get("WEBHOOK_SECRET") or getattr(
        settings, "ANYMAIL_WEBHOOK_SECRET", None
    )


def requires_secret(view):
    @wraps(view)
    def guarded(request, *args, **kwargs):
        if not webhook_secret():
            raise Http404("No webhook secret is configured.")
        return view(request, *args, **kwargs)

    return guarded  # wraps() keeps the view's csrf_exempt


urlpatterns = [
    path(str(pattern.pattern), requires_secret(pattern.callback), name=pattern.name)
    for pattern in anymail_urls.urlpatterns
    if pattern.name and pattern.name.endswith("_tracking_webhook")
]
