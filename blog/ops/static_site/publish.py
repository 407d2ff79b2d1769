"""Publishing a built site (``manage.py build_site DIR``) with ``manage.py publish_site DIR --to
TARGET``: to a folder (``folder:/srv/www``) or to an S3-compatible bucket (``s3://bucket/prefix``:
AWS S3, Cloudflare R2, MinIO), as a mirror: what changed is written, what is gone is deleted, the
rest is left alone (docs/deployment.md, "A static copy").

- Only what changed is sent. A bucket is listed once (a request per 1,000 keys) and a file is
  uploaded when its MD5 differs from the object's ETag (the MD5 of an object written in one
  request, as every object here is; a store whose ETags are not MD5s, SSE-KMS, gets every file
  again). A folder compares size and modification time, then bytes, like rsync.
- Every object carries its ``Content-Type``, from the build's manifest (``.biji-build.json``,
  format 1: ``{"complete": …, "files": {"path": {"content_type", "kind", "url"}}}``; an
  unfinished build is refused; a ``cache_control`` there wins too) or else from the file
  (Pagefind's index is not in the manifest): a feed is recognised by its bytes
  (``feed/index.html`` holding RSS is served as RSS), the rest by extension (:data:`TYPES`);
  text says it is UTF-8. Its ``Cache-Control`` follows its kind
  (:func:`cache_control`): a name with a hash never changes (a year, immutable), media a month
  (as the media store's), everything else (pages, feeds, the sitemap) briefly.
- The page of an old URL (a legacy redirect) also carries ``WebsiteRedirectLocation``, so an
  S3 website endpoint answers it with a 301 where other hosts read its refresh.
- Assets are written before the pages that name them, and deletions come last, so a reader
  meanwhile meets old pages or new ones, never a page missing its stylesheet.
- A target is deleted from only if biji published it (the marker file :data:`MARKER`) or it is
  empty; ``replace=True`` takes over one that holds other files. A folder's ``.git`` (a
  gh-pages checkout) and the names given in ``keep`` are never touched.
- Every request is bounded (:func:`blog.images.object_storage.bounded_config`: seconds to
  connect and to read, one retry); the store's errors are :class:`PublishError`.

May import: :mod:`blog.images`.
"""

import base64
import contextlib
import hashlib
import html
import json
import mimetypes
import os
import re
import shutil
import stat
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, NoCredentialsError
from django.conf import settings

from blog.images.object_storage import CACHE_CONTROL as MEDIA_CACHE_CONTROL
from blog.images.object_storage import CLIENT_ERRORS, bounded_config

MANIFEST = ".biji-build.json"  # written by build_site; never published
MARKER = ".biji-published"  # in a target biji publishes to: deleting there is allowed
MARKER_TEXT = b"Published by biji (manage.py publish_site); files here are replaced.\n"
KEPT_IN_FOLDERS = (".git",)  # a gh-pages checkout stays one
WORKERS = 8  # uploads in flight at once
DELETE_BATCH = 1000  # keys per DeleteObjects request (the API's limit)

SHORT = "public, max-age=60, s-maxage=300"  # pages, feeds, sitemap: new within minutes
IMMUTABLE = "public, max-age=31536000, immutable"  # a name that carries its content's hash
MEDIA = MEDIA_CACHE_CONTROL  # a month, as the media store sends (names never change content)

HTML = "text/html; charset=utf-8"
RSS = "application/rss+xml; charset=utf-8"
ATOM = "application/atom+xml; charset=utf-8"
XML = "application/xml"
OCTETS = "application/octet-stream"
# By extension, before the system's table (which varies between machines).
TYPES = {
    ".html": HTML,
    ".htm": HTML,
    ".xml": XML,
    ".xsl": XML,
    ".txt": "text/plain; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".wasm": "application/wasm",
    ".pdf": "application/pdf",
    ".gz": "application/gzip",
    ".br": OCTETS,
}
# Pagefind's index: its chunks and metadata are named by their content's hash
# (pagefind/en/fragment/en_3ee1038.pf_fragment, pagefind/en/pagefind.en_50869bad48.pf_meta);
# pagefind.js and pagefind-entry.json, which name them, are not.
PAGEFIND_CHUNK = re.compile(r"^pagefind/.*_[0-9a-f]{7,}\.pf_[a-z]+$")
# What a build writes before renaming it into place: never part of a site.
PARTIAL = re.compile(r"^\..+\.(?:tmp|biji-partial)$")
FORMAT = 1  # of the manifest build_site writes
# Django's manifest storage: name.<12 hex digits>.ext (and its .gz/.br beside it).
HASHED_STATIC = re.compile(r"\.[0-9a-f]{12}\.[A-Za-z0-9]+(?:\.gz|\.br)?$")
# What a feed or a sitemap starts with, after an XML declaration, processing instructions
# (a stylesheet) and comments.
XML_ROOT = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*(?:(?:<\?[^>]*\?>|<!--.*?-->)\s*)*<(rss|feed|urlset|sitemapindex)\b",
    re.DOTALL,
)
CANONICAL = re.compile(rb'<link rel="canonical" href="([^"]+)"')
ROOT_TYPES = {b"rss": RSS, b"feed": ATOM, b"urlset": XML, b"sitemapindex": XML}


class PublishError(Exception):
    """The site could not be published; the message says why and what to do."""


@dataclass(frozen=True)
class SiteFile:
    name: str  # relative, with forward slashes: en/notes/x/index.html
    path: Path
    size: int
    content_type: str
    cache_control: str
    redirect: str | None = None  # where an old URL's page sends the reader


@dataclass
class Report:
    uploaded: list = field(default_factory=list)  # names written, in order
    unchanged: int = 0
    deleted: list = field(default_factory=list)  # names removed from the target
    bytes: int = 0  # bytes written
    verb: str = "uploaded"

    def summary(self):
        return (
            f"{len(self.uploaded)} {self.verb} ({self.bytes} bytes), {self.unchanged} unchanged, "
            f"{len(self.deleted)} deleted"
        )


# --- the built folder -------------------------------------------------------------------------


def _url_folder(url):
    """``static/`` of STATIC_URL ``/static/``; None for a URL on another host."""
    if not url or "//" in url:
        return None
    return url.strip("/") + "/"


def _sniffed_type(path):
    with open(path, "rb") as file:
        head = file.read(2048)
    found = XML_ROOT.match(head)
    return ROOT_TYPES[found.group(1)] if found else None


def _with_charset(kind):
    """Text in UTF-8 says so, as WhiteNoise does for the live site's static files."""
    bare = kind.split(";")[0].strip()
    if "charset=" in kind or not (bare.startswith("text/") or bare == "application/javascript"):
        return kind
    return f"{kind}; charset=utf-8"


def content_type(name, path, entry=None):
    """The type to serve ``name`` with: the manifest's, a feed's or sitemap's by its bytes (so
    ``feed/index.html`` holding RSS is RSS), else by extension; text says it is UTF-8."""
    return _with_charset(_bare_type(name, path, entry))


def _bare_type(name, path, entry):
    if entry and entry.get("content_type"):
        return entry["content_type"]
    extension = PurePosixPath(name).suffix.lower()
    if extension in ("", ".html", ".htm", ".xml") and (sniffed := _sniffed_type(path)):
        return sniffed
    if extension in TYPES:
        return TYPES[extension]
    if extension.startswith(".pf_") or extension == ".pagefind":
        return OCTETS
    guessed, _ = mimetypes.guess_type(name, strict=True)
    return guessed or OCTETS


def cache_control(name, entry=None):
    """How long browsers and CDNs may keep ``name``: the manifest's choice, else a year for a
    name that carries its content's hash (static files, Pagefind's chunks), a month for media,
    a few minutes for the rest (pages, feeds, the sitemap, robots.txt, unhashed static files)."""
    if entry and entry.get("cache_control"):
        return entry["cache_control"]
    static, media = _url_folder(settings.STATIC_URL), _url_folder(settings.MEDIA_URL)
    if static and name.startswith(static) and HASHED_STATIC.search(name):
        return IMMUTABLE
    if PAGEFIND_CHUNK.match(name):
        return IMMUTABLE
    if media and name.startswith(media):
        return MEDIA
    return SHORT


def redirect_target(path, entry=None):
    """Where the page of an old URL (the manifest's kind ``redirect``: a refresh to its
    canonical link) sends the reader; S3's website endpoint answers it with a 301 there."""
    if not entry or entry.get("kind") != "redirect":
        return None
    with open(path, "rb") as file:
        found = CANONICAL.search(file.read(4096))
    if not found:
        return None
    target = html.unescape(found.group(1).decode("utf-8", "replace"))
    return target if target.startswith(("/", "https://", "http://")) else None


def _manifest(directory):
    path = directory / MANIFEST
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files = manifest.get("files", {})
    except (ValueError, AttributeError, OSError) as error:
        raise PublishError(f"{path} is not a build manifest ({error}); build again.") from error
    if manifest.get("format", FORMAT) != FORMAT:
        raise PublishError(f"{path} is of another biji version's format; build again.")
    if manifest.get("complete") is False:
        raise PublishError(f"The build in {directory} did not finish: build again, then publish.")
    if not isinstance(files, dict):
        raise PublishError(f"{path}: 'files' is not an object; build again.")
    return {name: entry for name, entry in files.items() if isinstance(entry, dict)}


def read_site(directory):
    """Every file of the built folder ``directory`` but the manifest, by name, with how to
    serve it."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PublishError(f"{directory} is not a folder: give the folder build_site wrote.")
    manifest = _manifest(directory)
    site = {}
    for folder, _, names in os.walk(directory):
        for base in names:
            path = Path(folder, base)
            name = path.relative_to(directory).as_posix()
            if name in (MANIFEST, MARKER) or PARTIAL.match(base) or not path.is_file():
                continue
            entry = manifest.get(name)
            site[name] = SiteFile(
                name=name,
                path=path,
                size=path.stat().st_size,
                content_type=content_type(name, path, entry),
                cache_control=cache_control(name, entry),
                redirect=redirect_target(path, entry),
            )
    return site


def _assets_first(site, names):
    """``names`` in two waves: what pages name (assets, with long lives), then the pages."""
    assets = [n for n in names if site[n].cache_control != SHORT]
    pages = [n for n in names if site[n].cache_control == SHORT]
    return [sorted(assets), sorted(pages)]


def _md5(path):
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


# --- targets ----------------------------------------------------------------------------------


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
    unchanged (new headers for every object). Returns a :class:`Report`."""
    directory = Path(directory)
    site = read_site(directory)
    kind, *where = parse_target(target)
    if kind == "folder":
        return publish_to_folder(site, directory, where[0], keep=keep, replace=replace, force=force)
    bucket, prefix = where
    if client is None:
        client = s3_client(endpoint_url=endpoint_url, region=region)
    return publish_to_bucket(site, client, bucket, prefix, replace=replace, force=force)


# --- S3 ---------------------------------------------------------------------------------------


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


def _upload(client, bucket, key, file, md5):
    more = {"WebsiteRedirectLocation": file.redirect} if file.redirect else {}
    with open(file.path, "rb") as body, _store_errors(f"the upload of {key}"):
        client.put_object(
            **more,
            Bucket=bucket,
            Key=key,
            Body=body,
            ContentType=file.content_type,
            CacheControl=file.cache_control,
            ContentMD5=base64.b64encode(bytes.fromhex(md5)).decode("ascii"),
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
    digests = {name: _md5(file.path) for name, file in site.items()}
    changed = [name for name in site if force or remote.get(prefix + name) != digests[name]]
    report.unchanged = len(site) - len(changed)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for wave in _assets_first(site, changed):
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


# --- a folder ---------------------------------------------------------------------------------


def _same_file(file, destination):
    """Whether ``destination`` already holds ``file``'s bytes: the same size and modification
    time (copies keep it), or the same bytes."""
    try:
        there = destination.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(there.st_mode) or there.st_size != file.size:
        return False
    if there.st_mtime_ns == file.path.stat().st_mtime_ns:
        return True
    with open(file.path, "rb") as ours, open(destination, "rb") as theirs:
        while chunk := ours.read(1 << 20):
            if chunk != theirs.read(len(chunk)):
                return False
    shutil.copystat(file.path, destination)  # next time the quick check answers
    return True


def _remove(path):
    """Remove ``path`` without following a link out of the target."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _make_folders(target, name):
    """The folders of ``name`` under ``target``, a file or link in their way removed."""
    folder = target
    for part in PurePosixPath(name).parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            folder.unlink()
        folder.mkdir(exist_ok=True)


def _copy(file, destination):
    """Write ``destination`` whole: a hidden copy beside it, then a rename."""
    if destination.is_symlink() or destination.is_dir():
        _remove(destination)
    temporary = destination.with_name(f".{destination.name}.biji-partial")
    try:
        shutil.copy2(file.path, temporary)
        os.replace(temporary, destination)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _kept(name, keep):
    return name.split("/", 1)[0] in keep


def _folder_listing(target, keep):
    """Every file and link under ``target`` by name, and its folders, the kept left out."""
    files, folders = set(), []
    for folder, subfolders, names in os.walk(target):
        here = Path(folder)
        for base in list(subfolders):
            name = (here / base).relative_to(target).as_posix()
            if _kept(name, keep):
                subfolders.remove(base)
            elif (here / base).is_symlink():
                files.add(name)  # a link to a folder: removed as a link, never walked into
            else:
                folders.append(name)
        for base in names:
            name = (here / base).relative_to(target).as_posix()
            if not _kept(name, keep):
                files.add(name)
    return files, folders


def publish_to_folder(site, directory, target, *, keep=(), replace=False, force=False):
    keep = set(KEPT_IN_FOLDERS) | set(keep)
    source, target = Path(directory).resolve(), Path(target).absolute()
    resolved = target.resolve()
    if resolved == source or source in resolved.parents or resolved in source.parents:
        raise PublishError(f"{target} and {directory} overlap: publish to a folder of its own.")
    if target.exists() and not target.is_dir():
        raise PublishError(f"{target} is not a folder.")
    report = Report(verb="copied")
    target.mkdir(parents=True, exist_ok=True)
    present, folders = _folder_listing(target, keep)
    foreign = present - {MARKER}
    if (foreign or folders) and MARKER not in present and not replace:
        raise PublishError(
            f"{target} holds {len(foreign)} files biji did not publish: publish to an empty "
            "folder, or pass --replace to replace them with the site (--keep NAME keeps one)."
        )
    changed = []
    for name in sorted(site):
        if _kept(name, keep):
            raise PublishError(f"{name} is in the site and in --keep: keep another name.")
        if not force and _same_file(site[name], target / name):
            report.unchanged += 1
        else:
            changed.append(name)
    for wave in _assets_first(site, changed):
        for name in wave:
            _make_folders(target, name)
            _copy(site[name], target / name)
            report.uploaded.append(name)
            report.bytes += site[name].size
    (target / MARKER).write_bytes(MARKER_TEXT)
    for name in sorted(present - set(site) - {MARKER}):
        path = target / name
        if path.is_symlink() or path.exists():
            _remove(path)
            report.deleted.append(name)
    for name in sorted(folders, key=lambda n: n.count("/"), reverse=True):
        path = target / name
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
    return report
