"""Feed entries read well in real feed readers: feedparser, and a terminal reader's text."""

import feedparser
import html2text
import pytest
from bs4 import BeautifulSoup

from blog.models import Language
from blog.rendering import render_markdown
from blog.rendering.feed_html import feed_html
from tests.factories import make_note

NOTE_URL = "https://blog.example/notes/warp/"
BODY = """## 调度

启动延迟约 $5\\,\\mu s$，见脚注[^guide]。![示意图](/media/uploads/warp.png) [相对](../other/)
[外](https://other.example/a) [邮](mailto:a@b.example) [标题](#调度)

```python
print("warp")
```

[^guide]: CUDA 编程指南。
"""


def test_links_images_and_footnotes_point_at_the_note_and_the_site():
    doc = BeautifulSoup(feed_html(render_markdown(BODY).html, NOTE_URL), "html.parser")
    assert doc.img["src"] == "https://blog.example/media/uploads/warp.png"
    assert doc.img["alt"] == "示意图"
    hrefs = {a.get_text(): a["href"] for a in doc.select("a")}
    assert hrefs["相对"] == "https://blog.example/notes/other/"
    assert hrefs["外"] == "https://other.example/a" and hrefs["邮"] == "mailto:a@b.example"
    assert hrefs["标题"] == NOTE_URL + "#调度"
    anchors = [a["href"] for a in doc.select("a") if "#" in a["href"]]
    assert anchors and all(href.startswith(NOTE_URL + "#") for href in anchors), anchors


def test_text_bytes_outside_changed_links_are_kept():
    html = '<p title="a &amp; b">x &lt; y&nbsp;<a href="/a?b=1&amp;c=2">l</a></p>'
    assert feed_html(html, NOTE_URL) == (
        '<p title="a &amp; b">x &lt; y&nbsp;<a href="https://blog.example/a?b=1&amp;c=2">l</a></p>'
    )


def as_terminal_text(html):
    converter = html2text.HTML2Text(bodywidth=0)
    return converter.handle(html)


def test_a_terminal_reader_sees_math_once_no_pilcrows_and_the_code_label():
    text = as_terminal_text(feed_html(render_markdown(BODY).html, NOTE_URL))
    assert "¶" not in text
    assert text.count("5") == 1 and "\\mu" not in text  # the formula once, not its TeX too
    assert "Python" in text and 'print("warp")' in text
    assert "](#" not in text  # no link resolved against the feed's own URL


def test_math_keeps_its_tex_for_readers_that_want_it():
    doc = BeautifulSoup(feed_html(render_markdown("$a < b$").html, NOTE_URL), "html.parser")
    assert doc.math["alttext"] == "a < b"
    assert doc.find("annotation", encoding="application/x-tex") is None


@pytest.mark.django_db
def test_feedparser_and_text_conversion_of_a_real_feed(client):
    note = make_note(slug="warp", body=BODY, language=Language.CHINESE)
    parsed = feedparser.parse(client.get("/feed/").content)
    assert not parsed.bozo
    entry = next(e for e in parsed.entries if e.link.endswith(note.get_absolute_url()))
    text = as_terminal_text(entry.content[0].value)
    assert "¶" not in text and "\\mu" not in text
    links = BeautifulSoup(entry.content[0].value, "html.parser").select("a[href]")
    assert all(a["href"].startswith(("http://", "https://", "mailto:")) for a in links)


@pytest.mark.django_db
def test_a_tag_without_an_english_name_is_one_clean_category(client):
    from blog.models import Tag

    note = make_note(slug="tagged")
    note.tags.add(*Tag.objects.resolve(["调度"]))
    entry = feedparser.parse(client.get("/feed/").content).entries[0]
    assert [t.term for t in entry.tags] == ["调度"]
