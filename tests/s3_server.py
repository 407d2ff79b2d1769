"""A real S3 server for tests: moto's standalone server (``moto_server``, a dev dependency), started
on a free port the first time a test of this process asks for it, waited for until it answers, and
stopped when the process exits. Each test gets a bucket of its own, named uniquely and removed with
its objects afterwards, so tests in parallel processes or one after another never see each other's
files. Never moto's in-process mock: requests go over HTTP, as to AWS, R2 or MinIO.
"""

import atexit
import contextlib
import http.client
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import boto3

BIN = Path(sys.executable).parent
# moto takes any credentials; boto3 (and biji's storage through it) wants some.
ACCESS_KEY, SECRET_KEY, REGION = "biji-test", "biji-test", "us-east-1"
START_TIMEOUT = 20  # seconds: moto imports in about 1 s; a loaded machine takes longer

_server = None


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("GET", "/")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def _stop(process, log):
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


def endpoint():
    """The URL of this process's S3 server, started on first use."""
    global _server
    if _server is None:
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        log = tempfile.TemporaryFile()
        process = subprocess.Popen(
            [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        atexit.register(_stop, process, log)
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"moto_server did not start: {log.read()[-2000:]!r}")
            time.sleep(0.05)
        _server = url
    return _server


def client(url=None):
    """A boto3 client of the server, to look at what biji stored without biji's code."""
    return boto3.client(
        "s3",
        endpoint_url=url or endpoint(),
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )


def keys(bucket, prefix=""):
    """Every key in ``bucket`` under ``prefix``, sorted."""
    pages = client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(entry["Key"] for page in pages for entry in page.get("Contents", ()))


def read(bucket, key):
    return client().get_object(Bucket=bucket, Key=key)["Body"].read()


@contextlib.contextmanager
def bucket():
    """A new, empty bucket of a unique name; it and its objects are removed afterwards."""
    name = f"biji-test-{uuid.uuid4().hex[:16]}"
    s3 = client()
    s3.create_bucket(Bucket=name)
    try:
        yield name
    finally:
        for key in keys(name):
            s3.delete_object(Bucket=name, Key=key)
        s3.delete_bucket(Bucket=name)


def storage_options(bucket_name, url=None, **options):
    """``OPTIONS`` of biji's object storage on ``bucket_name`` of the server at ``url``."""
    return {
        "bucket_name": bucket_name,
        "endpoint_url": url or endpoint(),
        "region_name": REGION,
        "access_key": ACCESS_KEY,
        "secret_key": SECRET_KEY,
        **options,
    }


def site_environment(bucket_name, url=None, **more):
    """The environment variables of a site (tests/processes.py) whose media are in
    ``bucket_name``."""
    return {
        "MEDIA_S3_BUCKET": bucket_name,
        "MEDIA_S3_ENDPOINT_URL": url or endpoint(),
        "MEDIA_S3_REGION": REGION,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        **more,
    }
