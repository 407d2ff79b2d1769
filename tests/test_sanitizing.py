"""The nh3 allowlist: hostile Markdown and HTML come out inert; legitimate markup survives."""

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from blog.rendering import render_markdown
from blog.rendering.sanitizer import ALLOWED_CLASSES, sanitize_html

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

FORBIDDEN_TAGS = {
    "script", "style", "iframe", "frame", "object", "embed", "applet", "svg", "form", "button",
    "textarea", "select", "option", "base", "meta", "link", "template", "noscript", "maction",
    "annotation-xml", "mglyph",
}  # fmt: skip
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "background", "poster"}


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser-ish tokenizer sees them."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.comments = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_comment(self, data):
        self.comments.append(data)


def assert_inert(html):
    parsed = Elements(html)
    assert not parsed.comments
    for tag, attrs in parsed.elements:
        assert tag not in FORBIDDEN_TAGS, html
        for name, value in attrs.items():
            assert not name.startswith("on"), html
            assert name not in {"style", "formaction", "action", "xlink:href", "srcdoc"}, html
            if name in URL_ATTRIBUTES:
                scheme = urlsplit((value or "").strip()).scheme.lower()
                assert scheme in {"", "http", "https", "mailto"}, html
            squashed = "".join((value or "").split()).lower()
            for scheme in ("javascript:", "vbscript:", "data:"):
                assert scheme not in squashed, html
        if tag == "input":
            assert attrs.get("type") == "checkbox" and "disabled" in attrs, html
        if "class" in attrs:
            assert set(attrs["class"].split()) <= ALLOWED_CLASSES.get(tag, set()), html
    # Text may mention "javascript:" (it is escaped prose); markup may not open a script.
    assert "<script" not in html.lower()


XSS_PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1) 'title')",
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "<svg onload=alert(1)><circle r=1 /></svg>",
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "<math><style><img src=x onerror=alert(1)></style></math>",
    "<math><maction actiontype=statusline#http://x xlink:href=javascript:alert(1)>x</maction>",
    "<math><annotation-xml encoding=text/html><img src=x onerror=alert(1)></annotation-xml>",
    '<iframe src="https://evil.example"></iframe>',
    "<iframe srcdoc='<script>alert(1)</script>'></iframe>",
    '<form action="https://evil.example"><button formaction="javascript:alert(1)">go</button>'
    "<input name=q><textarea>t</textarea><select><option>o</select></form>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="java&#x09;script:alert(1)">x</a>',
    "<img src=x onerror=alert(1)",
    '<object data="evil.swf"></object><embed src="evil.swf">',
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    "<input onfocus=alert(1) autofocus>",
    "<details open ontoggle=alert(1)><summary>s</summary></details>",
    '<p class="evil admonition">x</p><span class="k evil">y</span>',
    "<style>body{display:none}</style><!-- hidden comment -->",
    '<a href="vbscript:msgbox(1)">x</a>',
    "<p>a</p><!--><script>alert(1)</script>-->",
    '<template><img src=x onerror=alert(1)></template><noscript><p title="</noscript>'
    '<img src=x onerror=alert(1)>"></noscript>',
]


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_hostile_markdown_is_rendered_inert(payload):
    assert_inert(render_markdown(f"正文\n\n{payload}\n\n更多正文 {payload}").html)


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_hostile_html_is_sanitized_on_its_own(payload):
    assert_inert(sanitize_html(payload))


def test_executable_content_is_dropped_not_shown():
    html = sanitize_html("<script>alert(1)</script><style>p{}</style><p>ok</p>")
    assert html == "<p>ok</p>"


def test_unknown_classes_are_removed_and_known_ones_kept():
    assert sanitize_html('<p class="evil">x</p>') == "<p>x</p>"
    assert sanitize_html('<span class="k evil">def</span>') == '<span class="k">def</span>'
    assert (
        sanitize_html('<div class="admonition warning x"><p class="admonition-title">t</p></div>')
        == '<div class="admonition warning"><p class="admonition-title">t</p></div>'
    )


def test_ids_only_on_anchors_targets_and_only_anchor_like():
    assert sanitize_html('<h2 id="为什么_1">t</h2>') == '<h2 id="为什么_1">t</h2>'
    assert sanitize_html('<h2 id="a b">t</h2>') == "<h2>t</h2>"
    assert sanitize_html('<p id="x">t</p>') == "<p>t</p>"
    assert sanitize_html('<li id="fn-1">t</li>') == '<li id="fn-1">t</li>'


def test_rel_is_filtered_and_external_links_get_noopener():
    assert sanitize_html('<a href="/a" rel="nofollow evil">x</a>') == (
        '<a href="/a" rel="nofollow">x</a>'
    )
    assert sanitize_html('<a href="https://x.example" rel="nofollow">x</a>') == (
        '<a href="https://x.example" rel="nofollow noopener noreferrer">x</a>'
    )
    assert sanitize_html('<a href="/a" target="_blank">x</a>') == '<a href="/a">x</a>'


def test_checkboxes_are_forced_disabled_and_other_inputs_dropped():
    assert sanitize_html('<p><input type="text" value="v" name="n">x</p>') == "<p>x</p>"
    assert sanitize_html("<input>") == ""
    assert sanitize_html("<input type=checkbox checked>") == (
        '<input type="checkbox" disabled checked>'
    )


def test_mathml_survives_sanitizing():
    mathml = (
        '<math display="block"><semantics><mrow><mfrac><mi mathvariant="bold">a</mi>'
        '<mn>2</mn></mfrac><mo stretchy="false">(</mo><mspace width="0.167em"></mspace>'
        '</mrow><annotation encoding="application/x-tex">\\frac{\\mathbf{a}}{2}</annotation>'
        "</semantics></math>"
    )
    assert sanitize_html(mathml) == mathml


def test_highlighted_code_survives_sanitizing():
    html = render_markdown("```python\nimport os\n```").html
    assert '<span class="kn">import</span>' in html
    assert '<span class="filename">Python</span>' in html


def test_safe_markup_survives():
    html = (
        '<p lang="en">A <abbr title="Graphics Processing Unit">GPU</abbr> '
        '<a href="/notes/x/" title="t">link</a> <img src="/m/a.png" alt="a" width="10" '
        'height="20" loading="lazy" decoding="async"><sup>1</sup><sub>2</sub></p>'
    )
    assert sanitize_html(html) == html
