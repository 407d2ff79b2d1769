"""The static copy served on this machine as a host that reads ``_headers`` serves it (Netlify,
Cloudflare Pages; S3 from the types ``publish_site`` stores): ``manage.py serve_site DIR``. A
folder host without rules (GitHub Pages, ``python -m http.server``) serves feeds as HTML; this
shows the copy as readers of a host with rules get it, feeds as feeds, with its headers.
"""

import fnmatch
import functools
import http.server
import io
from pathlib import Path

HEADERS_FILE = "_headers"


def header_rules(folder):
    """``[(path pattern, [(name, value)])]`` from the copy's ``_headers`` (Netlify's format: a
    path at the start of a line, its headers indented under it)."""
    rules, path = [], None
    headers_file = Path(folder) / HEADERS_FILE
    if not headers_file.is_file():
        return rules
    for line in headers_file.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            path = line.strip()
            rules.append((path, []))
        elif path is not None and ":" in line:
            name, _, value = line.strip().partition(":")
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def headers_for(rules, url_path):
    """The headers of every rule matching ``url_path``; a later rule's value wins."""
    chosen = {}
    for pattern, headers in rules:
        if pattern == url_path or ("*" in pattern and fnmatch.fnmatchcase(url_path, pattern)):
            for name, value in headers:
                chosen[name.lower()] = (name, value)
    return list(chosen.values())


class Handler(http.server.SimpleHTTPRequestHandler):
    rules = ()

    def send_head(self):
        # A host compresses what it sends; collectstatic wrote each static file's .gz beside it.
        path = Path(self.translate_path(self.path))
        packed = path.with_name(path.name + ".gz")
        if (
            "gzip" in self.headers.get("Accept-Encoding", "")
            and path.is_file()
            and packed.is_file()
        ):
            body = packed.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def send_header(self, keyword, value):
        # The rules' types and headers replace the ones guessed from the file's extension.
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        ruled = {name.lower(): (name, v) for name, v in headers_for(self.rules, path)}
        if keyword.lower() in ruled:
            return
        if keyword.lower() == "content-type":
            keyword = "Content-Type"
        super().send_header(keyword, value)

    def end_headers(self):
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if getattr(self, "_status_sent", 200) < 400:
            for name, value in headers_for(self.rules, path):
                super().send_header(name, value)
        super().end_headers()

    def send_response(self, code, message=None):
        self._status_sent = code
        super().send_response(code, message)

    def send_error(self, code, message=None, explain=None):
        not_found = Path(self.directory) / "404.html"
        if code == 404 and not_found.is_file():  # as static hosts answer: the site's 404 page
            body = not_found.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def serve(folder, host="127.0.0.1", port=8000):
    """Serve ``folder`` until interrupted."""
    handler = type("CopyHandler", (Handler,), {"rules": header_rules(folder)})
    server = http.server.ThreadingHTTPServer(
        (host, port), functools.partial(handler, directory=str(folder))
    )
    with server:
        server.serve_forever()
