"""Odd page numbers, unknown slugs, impossible dates and junk query strings give a normal
page or a 404, never a 500."""

import re

import pytest

from tests.factories import make_note

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


LAST = object()  # the last page, however many there are


@pytest.fixture
def many(blog):
    """31 published notes (one the translation of another): several pages of ten."""
    for i in range(25):
        make_note(title=f"Filler {i}", slug=f"filler-{i}")
    return blog


@pytest.mark.parametrize(
    ("query", "expected_page"),
    [
        ("", 1),
        ("2", 2),
        ("abc", 1),  # not a number: the first page
        ("1.5", 1),
        ("%00", 1),
        ("0", LAST),  # a number out of range: the last page
        ("-1", LAST),
        ("99999", LAST),
        ("9" * 400, LAST),  # too big for any integer column
        ("last", LAST),
    ],
)
def test_page_numbers(client, many, query, expected_page):
    response = client.get("/", {"page": query})
    assert response.status_code == 200
    last = response.context["paginator"].num_pages
    assert last >= 3
    assert response.context["page_obj"].number == (last if expected_page is LAST else expected_page)


def test_page_numbers_on_other_lists(client, settings, many):
    settings.BIJI_PAGE_CACHE_SECONDS = 0  # each answer from the view, which the test inspects
    for path in ("/tags/gpu/", "/series/gpu-notes/", "/en/"):
        last = client.get(path).context["paginator"].num_pages
        for value, expected in (("abc", 1), ("-1", last), ("99999", last), ("1e9", 1)):
            response = client.get(path, {"page": value})
            assert response.status_code == 200, (path, value)
            assert response.context["page_obj"].number == expected, (path, value)
    assert client.get("/en/").context["paginator"].num_pages > 1  # the last page is not page 1


@pytest.mark.parametrize(
    "path",
    [
        "/notes/no-such-note/",
        "/notes/%3Cscript%3E/",
        "/tags/%F0%9F%98%80/",
        "/tags/no-such-tag/",
        "/series/no-such-series/",
        "/pages/no-such-page/",
        "/archive/2999/",
        "/archive/2999/13/",
        "/archive/2024/0/",
        "/archive/2024/13/",
        "/archive/0/",
        "/archive/0001/01/",
        "/archive/9999/12/",
        "/archive/99999999999999999999/",
        "/archive/1969/12/",
        "/archive/abc/",
        "/en/archive/2999/13/",
        "/notes/part-1/%E0%A4%A/",
        "/notes/part-1/share/x/",
        "/notes/part-1/share/" + "a" * 3000 + "/",
        "/en/notes/part-1/../../etc/passwd",
        "/zz/",
    ],
)
def test_unknown_things_are_404(client, blog, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "页面未找到" in response.content.decode() or path.startswith("/en/")


def test_a_note_page_ignores_its_query_string(client, blog):
    """The note view reads no query parameter: junk gives the very same page."""
    clean = client.get("/notes/part-1/")
    assert clean.status_code == 200
    for key, value in [
        ("page", "abc"),
        ("q", "'\"<>"),
        ("lang", "en"),
        ("q", "调度" * 200),
        ("size", "a" * 5000),
        ("month", "%00"),
    ]:
        response = client.get("/notes/part-1/", {key: value})
        assert response.status_code == 200, key
        assert response.content == clean.content, key


def test_junk_is_not_reflected_unescaped(client, blog):
    html = client.get("/", {"page": "<script>x</script>"}).content.decode()
    assert "<script>x</script>" not in html


def test_500_template_renders_without_context_or_database():
    from django.template import loader

    html = loader.get_template("500.html").render()
    assert "Server error" in html and "服务器" in html
    assert 'lang="zh-Hans"' in html


def test_404_uses_the_site_template(client, blog):
    response = client.get("/notes/no-such-note/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "页面未找到" in html and 'name="robots" content="noindex"' in html
    assert client.get("/en/notes/no-such-note/").content.decode().count("Page not found") >= 1
    switch = re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"', html)
    assert switch == [("/", "zh-Hans"), ("/en/", "en")]  # home pages, not more 404s
