"""What static hosts read beside the pages: ``.nojekyll`` (GitHub Pages serves every file as it
is), ``_redirects`` (Netlify, Cloudflare Pages: the old URLs' 301s, the English 404 page) and
``_headers`` (the live site's security headers, a year for static files, and the content type
of every page a host would type otherwise by its name: feeds, which a folder's ``index.html``
holds, and CSL-JSON citations). ``manage.py serve_site`` reads ``_headers``
too (:mod:`.preview`).
"""

from pathlib import PurePosixPath

from django.conf import settings

from blog.ops.static_site import addresses
from blog.ops.static_site.file_headers import TYPES

# What the live site sends on every page, and a static host can send from ``_headers``.
SECURITY_HEADERS = (
    "Content-Security-Policy",
    "Permissions-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-Frame-Options",
    "Strict-Transport-Security",
)


def write_host_files(writer, site, pages, redirects, reader):
    """The three files, for the crawled ``pages`` and the old URLs' ``redirects``
    (``(old path, target)``), the security headers read from the live site through ``reader``."""
    writer.write(".nojekyll", b"", "host", "text/plain")
    lines = [f"{old} {target} 301" for old, target in redirects]
    english = site.prefixed("/en/")
    lines.append(f"{english}* {english}404.html 404")
    writer.write("_redirects", ("\n".join(lines) + "\n").encode(), "host", "text/plain")
    headers = [f"{site.prefixed('/')}*", *security_headers(reader, site)]
    static = site.prefixed(settings.STATIC_URL) if settings.STATIC_URL.startswith("/") else ""
    if static:  # hashed names (collectstatic's manifest): they never change what they hold
        headers += [f"{static}*", "  Cache-Control: public, max-age=31536000, immutable"]
    for url, record in sorted(pages.items()):
        if not _typed_by_its_name(record):
            headers.append(f"{site.prefixed(addresses.static_url(url))}\n"
                           f"  Content-Type: {record['content_type']}")  # fmt: skip
    writer.write("_headers", ("\n".join(headers) + "\n").encode(), "host", "text/plain")


def _typed_by_its_name(record):
    """Whether a host typing the file by its extension sends the live site's type: not for a
    feed in ``feed/index.html``, nor a CSL-JSON citation in ``cite.json`` (plain JSON by name)."""
    by_name = TYPES.get(PurePosixPath(record["file"]).suffix.lower(), "")
    return by_name.split(";")[0] == record["content_type"].split(";")[0].strip()


def security_headers(reader, site):
    """The live site's security headers, as ``_headers`` lines for every file: its
    Content-Security-Policy lets the static search run Pagefind's WebAssembly."""
    home = reader.client.get(site.prefixed("/"), secure=reader.secure)
    lines = []
    for name in SECURITY_HEADERS:
        value = home.get(name)
        if value and name == "Content-Security-Policy":
            value = value.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
        if value:
            lines.append(f"  {name}: {value}")
    return lines
