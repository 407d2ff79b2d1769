"""``manage.py serve_site``: the static copy served as a host that reads ``_headers`` serves it,
feeds with their type, the copy's headers on every file, its 404 page, static files compressed."""

import gzip
import threading
import urllib.error
import urllib.request

import pytest

from blog.ops.static_site import preview

pytestmark = pytest.mark.backend_independent


@pytest.fixture
def copy(tmp_path):
    (tmp_path / "feed").mkdir()
    (tmp_path / "feed" / "index.html").write_text("<rss version='2.0'></rss>")
    (tmp_path / "index.html").write_text("<!doctype html><title>home</title>")
    (tmp_path / "404.html").write_text("<!doctype html><title>not here</title>")
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "site.abc123.css").write_text("body{}")
    (tmp_path / "static" / "site.abc123.css.gz").write_bytes(gzip.compress(b"body{}"))
    (tmp_path / "_headers").write_text(
        "/*\n  X-Frame-Options: DENY\n"
        "/static/*\n  Cache-Control: public, max-age=31536000, immutable\n"
        "/feed/\n  Content-Type: application/rss+xml; charset=utf-8\n"
    )
    handler = type("H", (preview.Handler,), {"rules": preview.header_rules(tmp_path)})
    server = preview.http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), preview.functools.partial(handler, directory=str(tmp_path))
    )
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def get(url, **headers):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as answer:  # noqa: S310
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_the_copy_is_served_with_its_rules(copy):
    status, headers, body = get(copy + "/feed/")
    assert (status, headers["Content-Type"]) == (200, "application/rss+xml; charset=utf-8")
    assert headers["X-Frame-Options"] == "DENY" and body.startswith(b"<rss")
    status, headers, body = get(copy + "/static/site.abc123.css", **{"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == b"body{}"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    status, headers, body = get(copy + "/notes/gone/")
    assert status == 404 and b"not here" in body
