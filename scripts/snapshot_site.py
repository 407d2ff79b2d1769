"""Write every public page and feed of the demo blog, with the clock frozen, to a folder.

A refactoring that changes no behaviour leaves the folder byte-identical: run this before and
after, then ``diff -r``. It makes its own SQLite database (the demo blog loaded at the frozen
time), crawls from the home pages, the feeds and the sitemap through Django's test client, and
writes each response's status, headers that a reader or cache sees, and body.

    DJANGO_SECRET_KEY=x .venv/bin/python scripts/snapshot_site.py /tmp/before
"""

import os
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import urljoin, urlsplit

FROZEN_AT = "2026-06-15 09:30:00+08:00"
SITE_URL = "http://127.0.0.1:8000"
START = [
    "/",
    "/en/",
    "/feed/",
    "/feed/atom/",
    "/sitemap.xml",
    "/robots.txt",
    "/nope/",
    "/lang/en/feed/",
    "/lang/zh-hans/feed/",
    "/?page=2",
    "/?page=x",
    "/search/?q=GPU",
    "/en/search/?q=%E8%B0%83%E5%BA%A6",
]
HEADERS = (
    "content-type",
    "content-language",
    "cache-control",
    "vary",
    "last-modified",
    "location",
    "x-page-cache",
)
LINK = re.compile(r"""(?:href|src)=["']([^"'#]+)""")
LOC = re.compile(r"<loc>([^<]+)</loc>")


def main(out):
    out = Path(out)
    database = Path(tempfile.mkdtemp()) / "snapshot.sqlite3"
    os.environ.update(
        DATABASE_URL=f"sqlite:///{database}",
        SITE_URL=SITE_URL,
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1",
        BIJI_RELEASE="snapshot",
    )
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SECRET_KEY", "snapshot")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

    import django
    import time_machine

    with time_machine.travel(FROZEN_AT, tick=False):
        django.setup()
        from django.core.management import call_command
        from django.test import Client

        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("migrate", verbosity=0)
        call_command("load_demo", verbosity=0)
        client = Client()
        seen, queue = set(), list(START)
        while queue:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            response = client.get(url)
            body = response.content
            name = url.strip("/").replace("/", "__").replace("?", "_Q_") or "_root"
            target = out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            head = [f"status: {response.status_code}"]
            head += [f"{h}: {response[h]}" for h in HEADERS if response.has_header(h)]
            target.write_bytes("\n".join(head).encode() + b"\n\n" + body)
            if response.status_code != 200:
                continue
            text = body.decode("utf-8", "replace")
            for link in LINK.findall(text) + LOC.findall(text):
                link = link.replace("&amp;", "&")
                if link.startswith(SITE_URL):
                    link = link[len(SITE_URL) :] or "/"
                parts = urlsplit(urljoin(url, link))
                if parts.scheme or parts.netloc:
                    continue
                path = parts.path + (f"?{parts.query}" if parts.query else "")
                if path.startswith(("/static/", "/media/", "/admin/", "/i18n/")):
                    continue
                queue.append(path)
        print(f"{len(seen)} URLs written to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
