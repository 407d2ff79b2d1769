"""Publishing to an S3-compatible bucket (``s3://bucket/prefix``: AWS S3, Cloudflare R2, MinIO)
as a mirror of the built site.

The prefix is listed once (a request per 1,000 keys), each changed file is uploaded with its
``Content-Type``, ``Cache-Control`` (and an old URL's ``WebsiteRedirectLocation``) and its
Content-MD5, eight at once, and what is gone is deleted a thousand keys a request. Every request
is bounded (:func:`blog.images.object_storage.bounded_config`: seconds to connect and to read,
one retry); the store's errors are :class:`.publish_report.PublishError`.

May import: :mod:`blog.images`.
"""

import base64
import contextlib
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, NoCredentialsError
from django.conf import settings

from blog.images.object_storage import CLIENT_ERRORS, bounded_config
from blog.ops.static_site.file_headers import TYPES
from blog.ops.static_site.publish_changes import MARKER, MARKER_TEXT, assets_first, md5
from blog.ops.static_site.publish_report import PublishError, Report

WORKERS = 8  # uploads in flight at once
DELETE_BATCH = 1000  # keys per DeleteObjects request (the API's limit)


def s3_client(*, endpoint_url=None, region=None):
    """A bounded client of the store (``BIJI_PUBLISH_S3_ENDPOINT_URL`` and ``…_REGION``, which
    default to the media store's). Checksums only where the API requires them: other stores
    than AWS refuse some of botocore's; each upload carries its Content-MD5, which every S3
    API checks."""
    endpoint_url = endpoint_url or settings.BIJI_PUBLISH_S3_ENDPOINT_URL
    region = region or settings.BIJI_PUBLISH_S3_REGION
    config = bounded_config(path_style=bool(endpoint_url)).merge(
        Config(
            max_pool_connections=WORKERS + 2,
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        )
    )
    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint_url or None, region_name=region or None, config=config
    )


@contextlib.contextmanager
def _store_errors(what):
    try:
        yield
    except ClientError as error:
        details = error.response.get("Error", {})
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        code = details.get("Code") or status
        message = details.get("Message") or ""
        raise PublishError(f"The store refused {what}: {code} {message}".strip()) from error
    except NoCredentialsError as error:
        raise PublishError(
            "No credentials for the store: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or "
            "AWS_PROFILE, or give the machine a role)."
        ) from error
    except CLIENT_ERRORS as error:
        raise PublishError(f"The store could not be reached ({what}): {error}") from error


def _listing(client, bucket, prefix):
    """{key: ETag without quotes} of every object under ``prefix``: one request per 1,000."""
    objects = {}
    with _store_errors(f"the listing of s3://{bucket}/{prefix}"):
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            for entry in page.get("Contents", ()):
                objects[entry["Key"]] = entry.get("ETag", "").strip('"')
    return objects


def _upload(client, bucket, key, file, digest):
    more = {"WebsiteRedirectLocation": file.redirect} if file.redirect else {}
    with open(file.path, "rb") as body, _store_errors(f"the upload of {key}"):
        client.put_object(
            **more,
            Bucket=bucket,
            Key=key,
            Body=body,
            ContentType=file.content_type,
            CacheControl=file.cache_control,
            ContentMD5=base64.b64encode(bytes.fromhex(digest)).decode("ascii"),
        )


def publish_to_bucket(site, client, bucket, prefix, *, replace=False, force=False):
    report = Report()
    remote = _listing(client, bucket, prefix)
    marker = prefix + MARKER
    if remote and marker not in remote and not replace:
        raise PublishError(
            f"s3://{bucket}/{prefix} holds {len(remote)} objects biji did not publish: publish "
            "to an empty prefix, or pass --replace to replace them with the site."
        )
    digests = {name: md5(file.path) for name, file in site.items()}
    changed = [name for name in site if force or remote.get(prefix + name) != digests[name]]
    report.unchanged = len(site) - len(changed)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for wave in assets_first(site, changed):
            # list() waits for the wave and raises its first error.
            list(
                pool.map(
                    lambda name: _upload(client, bucket, prefix + name, site[name], digests[name]),
                    wave,
                )
            )
            report.uploaded += wave
            report.bytes += sum(site[name].size for name in wave)
    if marker not in remote:
        with _store_errors(f"the upload of {marker}"):
            client.put_object(
                Bucket=bucket, Key=marker, Body=MARKER_TEXT, ContentType=TYPES[".txt"]
            )
    gone = sorted(key for key in remote if key != marker and key[len(prefix) :] not in site)
    for start in range(0, len(gone), DELETE_BATCH):
        batch = gone[start : start + DELETE_BATCH]
        with _store_errors(f"deleting {len(batch)} objects"):
            answer = client.delete_objects(
                Bucket=bucket,
                Delete={"Objects": [{"Key": key} for key in batch], "Quiet": True},
            )
        if errors := answer.get("Errors"):
            first = errors[0]
            raise PublishError(
                f"The store kept {len(errors)} objects it was asked to delete: "
                f"{first.get('Key')}: {first.get('Code')} {first.get('Message', '')}".strip()
            )
        report.deleted += [key[len(prefix) :] for key in batch]
    return report
