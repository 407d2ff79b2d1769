import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

try:
    application = get_wsgi_application()
except ImproperlyConfigured as error:
    # A setting the operator must fix (config/settings.py says which and how). Raised again
    # without its chain, so the server's log (gunicorn prints the traceback, this line, then
    # stops with "Worker failed to boot") ends here rather than deep inside Django.
    raise ImproperlyConfigured(f"biji cannot start: {error}") from None

# An object store's client (boto3) takes ~0.5 s to build; built here, as the worker starts,
# the first reader of each worker does not wait for it (pages only compute the store's URLs).
if os.environ.get("MEDIA_S3_BUCKET"):
    from django.core.files.storage import default_storage

    default_storage.url("biji-probe")  # computed, no request
