"""``manage.py build_site``: the demo blog as static files, served by ``python -m http.server``,
answers every URL of the live site with the live HTML, and a second build after an edit
rewrites only the files showing the edited note (blog/ops/static_site/build.py).

One end-to-end case runs in the gate; the others (a base URL with a path, old URLs' redirect
pages, a scheduled note coming due, media from the storage, pages kept under a query) only
with ``BIJI_TEST_INTEROP=1`` (``make test-interop``).

The accepted differences between a file and the live page (normalised below, nothing else):
the base URL; the subscription form, left out without ``BIJI_STATIC_SUBSCRIBE_URL`` (it posts
to a server); the search page (the search helper's own page over Pagefind, not tested here).
"""

import os
import re
import socket
import time
import urllib.error
import urllib.request
from datetime import timedelta
from urllib.parse import urljoin, urlsplit

import feedparser
import pytest
from django.core.management import call_command
from django.test import Client

from blog.models import LegacyPath, Note, Status
from blog.ops.static_site import build
from blog.ops.static_site.build import build_site, read_manifest
from tests.factories import make_note
from tests.processes import folder_server

pytestmark = pytest.mark.django_db(transaction=True)

interop = pytest.mark.skipif(
    not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it"
)

SUBSCRIBE_FORM = re.compile(r'\s*<section class="mail-subscribe"[^>]*>.*?</section>', re.S)
LINK = re.compile(r"""(?:href|src)=["']([^"'#]+)""")
LOC = re.compile(r"<loc>([^<]+)</loc>")
SEARCH = re.compile(r"^(/blog)?(/en)?/search/")  # the search helper's page


@pytest.fixture
def no_search(monkeypatch):
    """Pagefind's index and the search pages are the search helper's (test_static_search.py)."""
    monkeypatch.setattr(build.Build, "add_search", lambda self, manifest: None)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url):
    """(status, body) of ``url`` from the folder's server."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (our server)
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def live(url, site_url, base):
    """The live site's answer for ``url``, with the accepted differences normalised."""
    response = Client().get(url)
    assert response.status_code == 200, url
    text = response.content.decode().replace(site_url, base)
    return SUBSCRIBE_FORM.sub("", text)


def internal_links(body, page_url, base):
    """The links of a served file that stay on the static site (not the search page's)."""
    text = body.decode("utf-8", "replace")
    for link in LINK.findall(text) + LOC.findall(text):
        absolute = urljoin(page_url, link.replace("&amp;", "&"))
        if absolute.startswith(base + "/") and not SEARCH.match(urlsplit(absolute).path):
            yield absolute.split("#")[0]


def crawl_folder(base, start_urls):
    """Every URL reachable on the folder's server from ``start_urls``: {url: (status, body)}."""
    seen, queue = {}, list(start_urls)
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen[url] = status, body = fetch(url)
        path = urlsplit(url).path
        if status == 200 and not re.match(r"^(/blog)?/(static|media)/", path):
            queue.extend(internal_links(body, url, base))
    return seen


def pages_showing(manifest, names):
    return {url for url, record in manifest["pages"].items() if set(record["parts"]) & names}


@pytest.mark.slow
def test_the_demo_as_static_files(tmp_path, settings, no_search):
    call_command("load_demo", verbosity=0)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    settings.SITE_URL = base  # the build shares the live page cache (another base: interop)
    out = tmp_path / "site"

    started = time.monotonic()
    first = build_site(out, base)
    built_in = time.monotonic() - started
    manifest = read_manifest(out)
    pages = manifest["pages"]
    assert first.full and len(pages) > 150
    assert {"/", "/en/", "/feed/", "/sitemap.xml", "/robots.txt"} <= set(pages)
    assert not any(SEARCH.match(url) or "/share/" in url or "subscribe" in url for url in pages)
    assert (out / "404.html").is_file() and (out / "en" / "404.html").is_file()
    # A feed is the folder's index.html (what every folder host serves), its type recorded.
    assert manifest["files"]["feed/index.html"]["content_type"].startswith("application/rss+xml")

    with folder_server(out, port):
        served = crawl_folder(base, [f"{base}{url}" for url in pages])
        broken = sorted(url for url, (status, _body) in served.items() if status != 200)
        assert broken == [], broken
        # Every URL of the live site answers from the folder with the live page.
        for url in pages:
            body = served[base + url][1].decode()
            assert body == live(url, settings.SITE_URL, base), f"{url} differs from the live page"
        # Every feed parses; every sitemap location answers (the crawl followed them).
        feeds = [url for url, record in pages.items() if "xml" in record["content_type"]]
        feeds = [url for url in feeds if not url.endswith(".xml")]
        assert len(feeds) >= 10
        for url in feeds:
            parsed = feedparser.parse(
                served[base + url][1], sanitize_html=False, resolve_relative_uris=False
            )
            assert not parsed.bozo and parsed.entries, url
        locations = {
            loc
            for url in pages
            if url.startswith("/sitemap")
            for loc in LOC.findall(served[base + url][1].decode())
        }
        assert locations and all(served.get(loc, (0,))[0] == 200 for loc in locations)

        # An edit of the note shown on the fewest pages: only the files showing its parts
        # (and the sitemaps', which date each section by its newest edit) are rendered again.
        note = min(
            Note.objects.published(),
            key=lambda n: len(pages_showing(manifest, {f"note:{n.pk}"})),
        )
        own = note.get_absolute_url()
        note.body += "\n\nOne more sentence."
        note.save()
        started = time.monotonic()
        second = build_site(out, base)
        again_in = time.monotonic() - started
        showing = pages_showing(manifest, {f"note:{note.pk}", "sitemap"})
        assert not second.full
        assert second.rendered == showing | {"/robots.txt"}  # robots.txt names no parts
        assert own in showing and len(showing) < len(pages) / 4
        files = {pages[url]["file"] for url in showing}
        assert f"{own.strip('/')}/index.html" in second.written <= files
        assert "One more sentence." in (out / own.strip("/") / "index.html").read_text()

        # Unpublished: its files go, and so do the links to it.
        note.status = Status.DRAFT
        note.save()
        third = build_site(out, base)
        assert own in third.gone and f"{own.strip('/')}/index.html" in third.deleted
        assert fetch(f"{base}{own}")[0] == 404
        manifest = read_manifest(out)
        assert not [url for url in manifest["pages"] if url.startswith(own)]
        served = crawl_folder(base, [f"{base}/", f"{base}/en/"])
        assert sorted(url for url, (status, _b) in served.items() if status != 200) == []
        assert not [url for url in served if urlsplit(url).path.startswith(own)]
    print(f"\ndemo built in {built_in:.2f} s, again after one edit in {again_in:.2f} s")


# --- with BIJI_TEST_INTEROP=1 -----------------------------------------------------------------

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


@pytest.fixture
def static_blog(db):
    """12 notes (two pages of the home list), one tag, an image in the media storage, an old
    URL of an imported note."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from tests.factories import make_tag

    image = default_storage.save("uploads/2026/01/pixel.png", ContentFile(PNG))
    tag = make_tag()
    notes = [
        make_note(title=f"笔记 {n:02d}", slug=f"n{n:02d}", tags=[tag],
                  published_ago=timedelta(days=n + 1))
        for n in range(12)
    ]  # fmt: skip
    notes[0].body += f"\n\n![pixel](/media/{image})\n"
    notes[0].save()
    LegacyPath.objects.create(path="/2025/08/17/old-post/", note=notes[1])
    LegacyPath.objects.create(path="/old-post.html", note=notes[2])
    return {"notes": notes, "image": image}


@interop
def test_a_base_url_with_a_path(tmp_path, settings, static_blog, no_search):
    """Built for https://host/blog: the folder served at /blog/ has no broken link, and the
    static files, media and pages kept under a query answer there."""
    port = free_port()
    base = f"http://127.0.0.1:{port}/blog"
    report = build_site(tmp_path / "blog", base)
    pages = read_manifest(tmp_path / "blog")["pages"]
    assert {"/", "/?page=2", "/feed/"} <= set(pages)
    assert pages["/?page=2"]["file"] == "page/2/index.html"
    assert f"media/{static_blog['image']}" in report.written
    with folder_server(tmp_path, port):
        served = crawl_folder(base, [f"{base}/", f"{base}/en/"])
        assert sorted(url for url, (status, _b) in served.items() if status != 200) == []
        assert f"{base}/page/2/" in served and f"{base}/media/{static_blog['image']}" in served
        assert any(url.startswith(f"{base}/static/") for url in served)
        home = served[f"{base}/"][1].decode()
        assert f'<link rel="canonical" href="{base}/">' in home
        second = served[f"{base}/page/2/"][1].decode()
        assert f'href="{base}/page/2/"' in second  # its canonical URL, rewritten
        assert "n11" in second and "n11" not in home
    # The live site mounted at /blog answers the same page 2 (a query there).
    with_prefix = {"SCRIPT_NAME": "/blog"}
    settings.SITE_URL = base
    from django.urls import clear_script_prefix, set_script_prefix

    set_script_prefix("/blog/")
    try:
        live_page = Client().get("/", {"page": 2}, **with_prefix).content.decode()
    finally:
        clear_script_prefix()
    assert "n11" in live_page


@interop
def test_old_urls_become_redirect_pages(tmp_path, settings, static_blog, no_search):
    notes = static_blog["notes"]
    settings.SITE_URL = "https://blog.example"
    out = tmp_path / "site"
    build_site(out)
    page = (out / "2025/08/17/old-post/index.html").read_text()
    target = f"https://blog.example{notes[1].get_absolute_url()}"
    assert f'<meta http-equiv="refresh" content="0; url={target}">' in page
    assert f'<link rel="canonical" href="{target}">' in page
    assert (out / "old-post.html").is_file()
    redirects = (out / "_redirects").read_text().splitlines()
    assert f"/2025/08/17/old-post/ {notes[1].get_absolute_url()} 301" in redirects
    assert f"/old-post.html {notes[2].get_absolute_url()} 301" in redirects
    # The live site sends the same old URL to the same place.
    response = Client().get("/2025/08/17/old-post/")
    assert response.status_code == 301 and response["Location"] == notes[1].get_absolute_url()
    # Unpublished, its redirect page goes.
    notes[1].status = Status.DRAFT
    notes[1].save()
    assert "2025/08/17/old-post/index.html" in build_site(out).deleted


@interop
def test_a_scheduled_note_appears_at_the_first_build_after_its_time(
    tmp_path, static_blog, no_search
):
    import time_machine

    from tests.factories import make_scheduled

    later = make_scheduled(title="以后", slug="later")  # three days ahead
    out = tmp_path / "site"
    build_site(out)
    assert "/notes/later/" not in read_manifest(out)["pages"]
    assert not build_site(out).full  # nothing changed: nothing but robots.txt rendered
    with time_machine.travel(later.published_at + timedelta(minutes=1), tick=False):
        report = build_site(out)
    assert report.full and report.why == "a scheduled note came due"
    assert "/notes/later/" in read_manifest(out)["pages"]
    assert "notes/later/index.html" in report.written


@interop
def test_the_subscription_form_posts_to_the_configured_endpoint(
    tmp_path, settings, static_blog, no_search
):
    settings.BIJI_STATIC_SUBSCRIBE_URL = "https://mail.example/subscribe/"
    out = tmp_path / "site"
    build_site(out)
    home = (out / "index.html").read_text()
    assert 'action="https://mail.example/subscribe/"' in home
    del settings.BIJI_STATIC_SUBSCRIBE_URL
    assert build_site(out).why == "another subscription endpoint"
    assert "mail-subscribe-form" not in (out / "index.html").read_text()
