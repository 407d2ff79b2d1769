"""Publishing a built site (``manage.py build_site DIR``) with ``manage.py publish_site DIR --to
TARGET``: to a folder (``folder:/srv/www``) or to an S3-compatible bucket (``s3://bucket/prefix``:
AWS S3, Cloudflare R2, MinIO), as a mirror: what changed is written, what is gone is deleted, the
rest is left alone (docs/deployment.md, "A static copy").

Its parts, each in a module of its own: the built folder read with how each file is served
(:mod:`.built_site`, :mod:`.file_headers`: the per-kind ``Content-Type`` and ``Cache-Control``),
what changed and in which order it is sent (:mod:`.publish_changes`), and the two targets
(:mod:`.folder_target`, :mod:`.bucket_target`). A build of the same folder does not run
meanwhile (:mod:`.folder_lock`).
"""

from pathlib import Path

from blog.ops.static_site.bucket_target import publish_to_bucket, s3_client
from blog.ops.static_site.built_site import read_site
from blog.ops.static_site.folder_lock import held
from blog.ops.static_site.folder_target import publish_to_folder
from blog.ops.static_site.publish_changes import MARKER
from blog.ops.static_site.publish_report import PublishError

# What callers (manage.py publish_site, the tests) use.
__all__ = ["MARKER", "PublishError", "parse_target", "publish", "s3_client"]


def parse_target(target):
    """``("folder", Path)`` or ``("s3", bucket, prefix)`` (the prefix empty or ending in /)."""
    if target.startswith("s3://"):
        bucket, _, prefix = target[len("s3://") :].partition("/")
        if not bucket:
            raise PublishError(f"{target!r}: name the bucket, s3://bucket or s3://bucket/prefix.")
        prefix = prefix.strip("/")
        return ("s3", bucket, f"{prefix}/" if prefix else "")
    if target.startswith("folder:"):
        path = target[len("folder:") :]
        if not path:
            raise PublishError(f"{target!r}: name the folder, folder:/srv/www.")
        return ("folder", Path(path))
    raise PublishError(f"{target!r}: publish to folder:/path or s3://bucket/prefix.")


def publish(
    directory,
    target,
    *,
    client=None,
    endpoint_url=None,
    region=None,
    keep=(),
    replace=False,
    force=False,
):
    """Publish the built folder ``directory`` to ``target`` (see :func:`parse_target`).

    ``client``: a boto3 S3 client (else one from ``endpoint_url`` and ``region``, credentials
    boto3's own); ``keep``: names at a folder's top that are not the site's and stay;
    ``replace``: delete from a target biji did not publish; ``force``: write every file, even
    unchanged (new headers for every object). Returns a :class:`.publish_report.Report`; raises
    :class:`.folder_lock.FolderBusy` when a build or publish of ``directory`` runs."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PublishError(f"{directory} is not a folder: give the folder build_site wrote.")
    with held(directory):
        site = read_site(directory)
        kind, *where = parse_target(target)
        if kind == "folder":
            return publish_to_folder(
                site, directory, where[0], keep=keep, replace=replace, force=force
            )
        bucket, prefix = where
        if client is None:
            client = s3_client(endpoint_url=endpoint_url, region=region)
        return publish_to_bucket(site, client, bucket, prefix, replace=replace, force=force)
