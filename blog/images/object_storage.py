"""Media on an object store (AWS S3, Cloudflare R2, MinIO, any S3 API) through django-storages'
S3 backend; ``MEDIA_S3_BUCKET`` chooses it (config/settings.py, docs/deployment.md).

What a deployment's settings cannot change is fixed here: URLs are unsigned (a signed URL
expires, and pages are cached for every reader), no file is overwritten (a name is biji's, and
a second write of one gets a name of its own, as on disk), every request is bounded (an
unreachable store fails in seconds, not after botocore's minutes of retries), and the client's
errors are ``OSError`` (:class:`StoreUnavailable`, ``FileNotFoundError``), so the callers that
cope with a full disk cope with a store that does not answer.

May import: :mod:`blog.images.store_errors`.
"""

import contextlib

from boto3.exceptions import Boto3Error
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from s3transfer.exceptions import RetriesExceededError
from storages.backends.s3 import S3Storage
from storages.utils import clean_name

from blog.images.store_errors import StoreUnavailable

CONNECT_TIMEOUT = 3  # seconds to open a connection to the store
READ_TIMEOUT = 10  # seconds a request may wait for the store's next bytes
ATTEMPTS = 2  # a request and one retry: the worst case is about 2 x (3 + 10) s
# Names never change what they hold (random, or carrying a hash; a variant is written again
# only when its original is), as on disk behind the proxy (`expires 30d`).
CACHE_CONTROL = "public, max-age=2592000"
# What the client raises besides a ClientError: no connection, a timeout, a failed transfer.
CLIENT_ERRORS = (BotoCoreError, Boto3Error, RetriesExceededError)
NOT_FOUND = {"404", "NoSuchKey", "NotFound"}


def bounded_config(*, path_style):
    """The client's limits; path-style addressing (``endpoint/bucket/key``) for a store of its
    own endpoint, which MinIO, R2 and moto all take and which needs no DNS name per bucket."""
    return Config(
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
        retries={"mode": "standard", "total_max_attempts": ATTEMPTS},
        s3={"addressing_style": "path" if path_style else "auto"},
    )


@contextlib.contextmanager
def _as_os_errors(name):
    try:
        yield
    except ClientError as error:
        details = error.response.get("Error", {})
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        code = str(details.get("Code") or status)
        if code in NOT_FOUND:
            raise FileNotFoundError(f"{name!r} is not in the media store") from error
        message = details.get("Message") or ""
        raise StoreUnavailable(
            f"The media store refused a request for {name!r}: {code} {message}".strip()
        ) from error
    except CLIENT_ERRORS as error:
        raise StoreUnavailable(f"The media store could not be reached: {error}") from error


class ObjectStorage(S3Storage):
    # Class attributes win over django-storages' AWS_* settings; OPTIONS still override them.
    querystring_auth = False
    file_overwrite = False

    def __init__(self, **options):
        if options.get("client_config") is None:
            options["client_config"] = bounded_config(path_style=bool(options.get("endpoint_url")))
        super().__init__(**options)

    def get_object_parameters(self, name):
        return {"CacheControl": CACHE_CONTROL, **super().get_object_parameters(name)}

    def _open(self, name, mode="rb"):
        with _as_os_errors(name):
            stored = super()._open(name, mode)
            if "r" in mode:
                stored.file  # noqa: B018 - fetched now, so a failure is an OSError here
            return stored

    def _save(self, name, content):
        with _as_os_errors(name):
            return super()._save(name, content)

    def delete(self, name):
        with _as_os_errors(name):
            return super().delete(name)

    def exists(self, name):
        with _as_os_errors(name):
            return super().exists(name)

    def listdir(self, name):
        with _as_os_errors(name):
            return super().listdir(name)

    def size(self, name):
        with _as_os_errors(name):
            return super().size(name)

    def get_modified_time(self, name):
        with _as_os_errors(name):
            return super().get_modified_time(name)

    def files_under(self, folder):
        """(name, size, modified) of every file under ``folder``: one listing request per 1,000
        files, where ``size()`` and ``get_modified_time()`` would cost two a file."""
        prefix = self._normalize_name(clean_name(folder)).rstrip("/") + "/"
        skip = len(self.location) + 1 if self.location else 0
        with _as_os_errors(folder):
            for summary in self.bucket.objects.filter(Prefix=prefix):
                yield summary.key[skip:], summary.size, summary.last_modified
