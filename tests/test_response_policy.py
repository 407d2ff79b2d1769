"""Site-wide response policies: security headers, and the language taken from the URL alone."""

import pytest

from tests.factories import make_note

pytestmark = pytest.mark.django_db


def vary(response):
    return {v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()}


@pytest.mark.parametrize("url", ["/", "/en/", "/robots.txt", "/feed/"])
def test_security_headers(client, url):
    response = client.get(url)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp
    assert (
        "script-src 'self'" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )
    assert "frame-ancestors 'none'" in csp


@pytest.mark.parametrize(
    ("url", "language"), [("/", "zh-hans"), ("/en/", "en"), ("/feed/", "zh-hans")]
)
def test_the_url_alone_decides_the_language(client, url, language):
    make_note()
    for accept in ("en", "zh-CN,zh;q=0.9", "fr"):
        client.cookies["django_language"] = "en" if accept != "en" else "zh-hans"
        response = client.get(url, headers={"accept-language": accept})
        assert response.status_code == 200
        assert response["Content-Language"] == language
        assert "accept-language" not in vary(response)
        assert "cookie" not in vary(response)


def test_chinese_interface_is_served_whatever_the_browser_asks(client):
    make_note()
    html = client.get("/", headers={"accept-language": "en"}).content.decode()
    assert '<html lang="zh-Hans"' in html


def test_the_admin_still_follows_the_browser_language(client):
    response = client.get("/admin/login/", headers={"accept-language": "en"})
    assert response["Content-Language"] == "en"
    assert "accept-language" in vary(response)
    response = client.get("/admin/login/", headers={"accept-language": "zh-CN"})
    assert response["Content-Language"] == "zh-hans"
