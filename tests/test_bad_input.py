"""Odd page numbers, unknown slugs, impossible dates and junk query strings give a normal
page or a 404, never a 500."""

import re

import pytest

from tests.factories import make_note

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


@pytest.fixture
def many(blog):
    """31 published notes: four pages of ten."""
    for i in range(25):
        make_note(title=f"Filler {i}", slug=f"filler-{i}")
    return blog


@pytest.mark.parametrize(
    ("query", "expected_page"),
    [
        ("abc", 1),
        ("0", 4),
        ("-1", 4),
        ("99999", 4),
        ("1e9", 1),
        ("", 1),
        ("2", 2),
        ("last", 4),
        ("%00", 1),
        ("'\"<>", 1),
        ("调度" * 200, 1),
        ("9" * 400, 4),
        ("1.5", 1),
    ],
)
def test_page_numbers(client, many, query, expected_page):
    response = client.get("/", {"page": query})
    assert response.status_code == 200
    assert response.context["page_obj"].number == expected_page


@pytest.mark.parametrize("path", ["/tags/gpu/", "/series/gpu-notes/", "/en/"])
def test_page_numbers_on_other_lists(client, many, path):
    for value in ("abc", "-1", "99999", "1e9"):
        assert client.get(path, {"page": value}).status_code == 200


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
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("key", ["q", "lang", "tag", "year", "month", "size", "page"])
@pytest.mark.parametrize("value", ["abc", "'\"<>", "调度" * 200, "a" * 5000, "[]", "NEAR(", "%00"])
def test_junk_query_strings_on_a_note(client, blog, key, value):
    assert client.get("/notes/part-1/", {key: value}).status_code == 200


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
