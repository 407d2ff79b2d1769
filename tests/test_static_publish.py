"""``manage.py publish_site``: a built site mirrored to an S3-compatible bucket or a folder, writing
only what changed, each object with its kind's Content-Type and Cache-Control, and deleting what
is gone (blog/ops/static_site/publish.py).

Against a real S3 server, moto's standalone server over HTTP (tests/s3_server.py), one bucket per
test, with a small built folder written here by hand (pages, feeds, a sitemap, a hashed static
file, an image, Pagefind's files and a manifest), not by build_site. The gate runs the bucket
journey; the other cases run in ``make test-interop`` (``BIJI_TEST_INTEROP=1``).
"""

import json
import os
import socket
import time

import pytest
from django.core.management import CommandError, call_command

from blog.ops.static_site.publish import MARKER, PublishError, publish, s3_client
from tests import s3_server

interop = pytest.mark.skipif(
    not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it"
)

HTML = "text/html; charset=utf-8"
RSS = "application/rss+xml; charset=utf-8"
ATOM = "application/atom+xml; charset=utf-8"
SHORT = "public, max-age=60, s-maxage=300"
YEAR = "public, max-age=31536000, immutable"
MONTH = "public, max-age=2592000"

RSS_BYTES = b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel/></rss>\n'
ATOM_BYTES = (
    b'<?xml version="1.0" encoding="utf-8"?>\n'
    b'<?xml-stylesheet href="/static/feed.xsl" type="text/xsl"?>\n'
    b'<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>\n'
)
OLD_URL_PAGE = (
    b'<!doctype html>\n<html><head><meta charset="utf-8"><title>https://example.com/en/notes/'
    b'hello/</title><link rel="canonical" href="https://example.com/en/notes/hello/"><meta '
    b'http-equiv="refresh" content="0; url=https://example.com/en/notes/hello/"></head></html>'
)
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
# name: (bytes, Content-Type, Cache-Control) of every file the site has.
SITE = {
    "index.html": (b"<!doctype html><title>biji</title>", HTML, SHORT),
    "en/index.html": (b"<!doctype html><title>Home</title>", HTML, SHORT),
    "zh-hans/index.html": ("<!doctype html><title>首页</title>".encode(), HTML, SHORT),
    "en/notes/hello/index.html": (b"<!doctype html><title>Hello</title>", HTML, SHORT),
    "en/notes/old/index.html": (b"<!doctype html><title>Old</title>", HTML, SHORT),
    "404.html": (b"<!doctype html><title>Not found</title>", HTML, SHORT),
    # An old imported URL, as build_site writes it (kind "redirect").
    "2019/05/hello.html": (OLD_URL_PAGE, HTML, SHORT),
    # RSS in an index.html: the manifest says so.
    "feed/index.html": (RSS_BYTES, RSS, SHORT),
    # Feeds the manifest does not name: recognised by their bytes.
    "tags/tea/feed/index.html": (RSS_BYTES, RSS, SHORT),
    "feed/atom/index.html": (ATOM_BYTES, ATOM, SHORT),
    "sitemap.xml": (b'<?xml version="1.0"?><urlset/>', "application/xml", SHORT),
    # A type no extension says: the manifest's.
    "opensearch.xml": (b"<OpenSearchDescription/>", "application/opensearchdescription+xml", SHORT),
    "robots.txt": (b"User-agent: *\nAllow: /\n", "text/plain; charset=utf-8", SHORT),
    "static/css/site.0123456789ab.css": (b"body{color:#222}", "text/css; charset=utf-8", YEAR),
    "static/css/site.css": (b"body{color:#222}", "text/css; charset=utf-8", SHORT),
    "media/photos/cat.png": (PNG, "image/png", MONTH),
    "pagefind/en/pagefind-entry.json": (b'{"version":"1"}', "application/json", SHORT),
    "pagefind/en/pagefind.js": (b"export {}", "text/javascript; charset=utf-8", SHORT),
    "pagefind/en/fragment/en_1a2b3c4.pf_fragment": (b"\x1f\x8b", "application/octet-stream", YEAR),
    "pagefind/en/pagefind.en_50869bad48.pf_meta": (b"\x1f\x8b", "application/octet-stream", YEAR),
}
# As build_site leaves them: Pagefind's files are not in the manifest, nor are two feeds here.
NOT_IN_MANIFEST = {"tags/tea/feed/index.html", "feed/atom/index.html"}


def build(folder, site=SITE):
    """A built site in ``folder``, as build_site would leave it, manifest included."""
    files = {}
    for name, (data, kind, _) in site.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if name not in NOT_IN_MANIFEST and not name.startswith("pagefind/"):
            # Static files and media with the system's type, as the build records them.
            kind = kind.removesuffix("; charset=utf-8") if "/static/" in f"/{name}" else kind
            files[name] = {"url": "/" + name.removesuffix("index.html"), "content_type": kind}
            if name == "2019/05/hello.html":
                files[name]["kind"] = "redirect"
    # A file a build was writing when it stopped: never published.
    (folder / "en" / ".index.html.0f3a.tmp").write_bytes(b"half")
    manifest = {"format": 1, "complete": True, "files": files}
    (folder / ".biji-build.json").write_text(json.dumps(manifest))
    return folder


def counted(client):
    """``client``, recording (operation, key) of each request it sends."""
    calls = []

    def record(model, params, **_):
        calls.append((model.name, params.get("Key")))

    client.meta.events.register("before-parameter-build.s3", record)
    return client, calls


@pytest.fixture
def credentials(monkeypatch):
    """moto's credentials, as a deployment gives boto3 its own."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3_server.ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3_server.SECRET_KEY)


def test_a_bucket_gets_each_kind_with_its_headers_and_then_only_what_changed(tmp_path, credentials):
    site = build(tmp_path / "site")
    with s3_server.bucket() as bucket:
        client, calls = counted(
            s3_client(endpoint_url=s3_server.endpoint(), region=s3_server.REGION)
        )
        report = publish(site, f"s3://{bucket}", client=client)

        assert sorted(report.uploaded) == sorted(SITE)
        assert (report.unchanged, report.deleted) == (0, [])
        assert report.bytes == sum(len(data) for data, _, _ in SITE.values())
        assert s3_server.keys(bucket) == sorted([*SITE, MARKER])  # not the manifest
        look = s3_server.client()
        for name, (data, kind, cache) in SITE.items():
            head = look.head_object(Bucket=bucket, Key=name)
            assert (name, head["ContentType"], head["CacheControl"]) == (name, kind, cache)
            assert head["ContentLength"] == len(data)
        head = look.head_object(Bucket=bucket, Key="2019/05/hello.html")
        assert head["WebsiteRedirectLocation"] == "https://example.com/en/notes/hello/"
        assert "WebsiteRedirectLocation" not in look.head_object(Bucket=bucket, Key="404.html")
        # Assets went up before the pages that name them.
        first_page = report.uploaded.index("404.html")
        assert "static/css/site.0123456789ab.css" in report.uploaded[:first_page]
        assert "media/photos/cat.png" in report.uploaded[:first_page]

        # One note edited, one unpublished: one listing, one upload, one deletion request.
        (site / "en/notes/hello/index.html").write_bytes(b"<!doctype html><title>Hello!</title>")
        (site / "en/notes/old/index.html").unlink()
        calls.clear()
        report = publish(site, f"s3://{bucket}", client=client)

        assert calls == [
            ("ListObjectsV2", None),
            ("PutObject", "en/notes/hello/index.html"),
            ("DeleteObjects", None),
        ]
        assert report.uploaded == ["en/notes/hello/index.html"]
        assert report.deleted == ["en/notes/old/index.html"]
        assert report.unchanged == len(SITE) - 2
        assert "en/notes/old/index.html" not in s3_server.keys(bucket)
        assert s3_server.read(bucket, "en/notes/hello/index.html").endswith(b"Hello!</title>")
        head = look.head_object(Bucket=bucket, Key="en/notes/hello/index.html")
        assert (head["ContentType"], head["CacheControl"]) == (HTML, SHORT)


# --- every case: make test-interop ------------------------------------------------------------


@interop
def test_a_prefix_is_the_site_and_the_rest_of_the_bucket_is_left_alone(tmp_path, credentials):
    site = build(tmp_path / "site")
    with s3_server.bucket() as bucket:
        look = s3_server.client()
        for other in ("other/keep.txt", "site-old/index.html", "sitemap.xml"):
            look.put_object(Bucket=bucket, Key=other, Body=b"not the site's")
        arguments = ["--endpoint-url", s3_server.endpoint(), "--region", s3_server.REGION]

        call_command("publish_site", str(site), "--to", f"s3://{bucket}/site/", *arguments)
        (site / "robots.txt").unlink()
        call_command("publish_site", str(site), "--to", f"s3://{bucket}/site", *arguments)

        expected = {f"site/{name}" for name in SITE} - {"site/robots.txt"}
        assert set(s3_server.keys(bucket, "site/")) == expected | {f"site/{MARKER}"}
        assert {"other/keep.txt", "site-old/index.html", "sitemap.xml"} <= set(
            s3_server.keys(bucket)
        )
        head = look.head_object(Bucket=bucket, Key="site/feed/index.html")
        assert head["ContentType"] == RSS

        # A prefix holding what biji did not publish is not emptied unless asked.
        with pytest.raises(CommandError, match="did not publish.*--replace"):
            call_command("publish_site", str(site), "--to", f"s3://{bucket}/other", *arguments)
        assert "other/keep.txt" in s3_server.keys(bucket)
        call_command(
            "publish_site", str(site), "--to", f"s3://{bucket}/other", "--replace", *arguments
        )
        assert "other/keep.txt" not in s3_server.keys(bucket)
        assert "other/index.html" in s3_server.keys(bucket)


@interop
def test_force_writes_every_object_again(tmp_path, credentials):
    site = build(tmp_path / "site")
    with s3_server.bucket() as bucket:
        client, calls = counted(
            s3_client(endpoint_url=s3_server.endpoint(), region=s3_server.REGION)
        )
        publish(site, f"s3://{bucket}", client=client)
        calls.clear()
        report = publish(site, f"s3://{bucket}", client=client, force=True)
        assert sorted(report.uploaded) == sorted(SITE)
        assert sum(1 for operation, _ in calls if operation == "PutObject") == len(SITE)


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@interop
def test_an_unreachable_or_missing_store_is_a_message_not_a_traceback(tmp_path, credentials):
    site = build(tmp_path / "site")
    started = time.monotonic()
    with pytest.raises(CommandError, match="could not be reached"):
        call_command(
            "publish_site",
            str(site),
            "--to",
            "s3://nowhere/site",
            "--endpoint-url",
            f"http://127.0.0.1:{closed_port()}",
            "--region",
            s3_server.REGION,
        )
    assert time.monotonic() - started < 10
    with pytest.raises(CommandError, match="NoSuchBucket"):
        call_command(
            "publish_site",
            str(site),
            "--to",
            "s3://no-such-bucket-here",
            "--endpoint-url",
            s3_server.endpoint(),
            "--region",
            s3_server.REGION,
        )
    for target in ("ftp://example.com/", "s3://", "folder:"):
        with pytest.raises(PublishError):
            publish(site, target)


@interop
def test_a_folder_is_mirrored_with_deletions_and_nothing_outside_is_touched(tmp_path):
    site = build(tmp_path / "site")
    www = tmp_path / "www"
    (www / ".git").mkdir(parents=True)
    (www / ".git/HEAD").write_text("ref: refs/heads/gh-pages\n")
    (www / "CNAME").write_text("blog.example.com\n")

    # A folder that holds what biji did not publish is not emptied unless asked.
    with pytest.raises(CommandError, match="did not publish"):
        call_command("publish_site", str(site), "--to", f"folder:{www}")
    assert (www / "CNAME").exists()
    call_command("publish_site", str(site), "--to", f"folder:{www}", "--keep", "CNAME")

    published = {p.relative_to(www).as_posix() for p in www.rglob("*") if p.is_file()}
    assert published == set(SITE) | {MARKER, "CNAME", ".git/HEAD"}
    for name, (data, _, _) in SITE.items():
        assert (www / name).read_bytes() == data

    # Outside the target: a file a link in the target points at, and the site's own folder.
    outside = tmp_path / "outside.txt"
    outside.write_text("mine")
    (www / "en/notes/link.txt").symlink_to(outside)
    (www / "en/linked").symlink_to(tmp_path / "site" / "static", target_is_directory=True)
    (www / "stray/deep").mkdir(parents=True)
    (www / "stray/deep/file.html").write_text("stray")

    (site / "en/notes/hello/index.html").write_bytes(b"<!doctype html><title>Hello!</title>")
    (site / "en/notes/old/index.html").unlink()
    report = publish(site, f"folder:{www}", keep=["CNAME"])

    assert report.uploaded == ["en/notes/hello/index.html"]
    assert report.unchanged == len(SITE) - 2
    assert sorted(report.deleted) == [
        "en/linked",
        "en/notes/link.txt",
        "en/notes/old/index.html",
        "stray/deep/file.html",
    ]
    assert not (www / "en/notes/old").exists()  # its emptied folder too
    assert not (www / "stray").exists()
    assert outside.read_text() == "mine"
    assert (site / "static/css/site.css").exists()
    assert (www / ".git/HEAD").exists() and (www / "CNAME").exists()
    assert (www / "en/notes/hello/index.html").read_bytes().endswith(b"Hello!</title>")
    assert not list(www.rglob("*.biji-partial"))

    with pytest.raises(PublishError, match="overlap"):
        publish(site, f"folder:{site / 'public'}")


@interop
def test_an_unfinished_build_is_not_published(tmp_path):
    site = build(tmp_path / "site")
    manifest = json.loads((site / ".biji-build.json").read_text())
    (site / ".biji-build.json").write_text(json.dumps({**manifest, "complete": False}))
    with pytest.raises(CommandError, match="did not finish"):
        call_command("publish_site", str(site), "--to", f"folder:{tmp_path / 'www'}")
    assert not (tmp_path / "www").exists()
