"""A note's email as a subscriber's mail client gets it, read from a real SMTP server.

No mail client runs here: the markup is checked for what Gmail, Apple Mail and Outlook
need (inline styles, tables, absolute images with alt text, formulas as TeX where MathML is
not shown), and the HTML and text parts are read through a text converter (html2text, a
development dependency) as a client without MathML would show them.
"""

import html2text
import pytest
from bs4 import BeautifulSoup
from django.utils import translation

from blog.mail.announce import announce
from blog.models import Delivery, Language, SiteSettings, SubscriberState, Wants
from tests import smtp_server as smtp
from tests.factories import make_note
from tests.mail_data import make_subscriber, send_queued

pytestmark = pytest.mark.django_db(transaction=True)
smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

SITE = "https://blog.example"
BODY = r"""## Attention

The score is $QK^\top/\sqrt{d}$ for each pair, see the [paper](https://arxiv.org/abs/1706.03762)
and [the kernel note](/notes/kernels/).[^1]

```python
def softmax(x):
    return x.exp() / x.exp().sum()  # no max trick
```

| GPU  | Memory |
|------|--------|
| H100 | 80 GB  |

$$
\sum_{i=1}^{n} e^{x_i}
$$

![A warp scheduler](/media/uploads/warp.png)

<img src="/media/uploads/wide.png" alt="A wide photo" width="4000" height="3000">

[^1]: Vaswani et al.
"""


@pytest.fixture
def site(settings):
    settings.SITE_URL = SITE
    settings.DEFAULT_FROM_EMAIL = "notes@blog.example"
    settings.BIJI_MAIL_RATE = 0
    SiteSettings.objects.update_or_create(pk=1, defaults={"title": "GPU 笔记"})


def emailed(smtp_server, note, **subscriber):
    """Announce ``note`` to one new subscriber, send, and return (subscriber, message)."""
    reader = make_subscriber(**subscriber)
    announce(note)
    send_queued()
    (received,) = smtp_server.wait_for(1)
    return reader, received


def one_click_link(message):
    """The https link of List-Unsubscribe (the header may be folded: a long URL)."""
    return message["List-Unsubscribe"].split(",")[0].strip().strip("<>")


def parts(message):
    html = message.get_body(("html",)).get_content()
    text = message.get_body(("plain",)).get_content()
    return html, text


def test_the_message_has_both_parts_and_the_list_headers(smtp_server, site, client):
    note = make_note(title="Attention, 注意力", slug="attention", body=BODY, language="en")
    reader, received = emailed(smtp_server, note, email="ada@example.com", wants=Wants.ENGLISH)
    message = received.message
    assert received.rcpt_tos == ["ada@example.com"]
    assert message["Subject"] == "Attention, 注意力"
    assert message["From"].addresses[0].display_name == "GPU 笔记"
    assert message["From"].addresses[0].addr_spec == "notes@blog.example"
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
    # The Message-ID stored with the delivery when it was queued.
    assert message["Message-ID"] == Delivery.objects.get(subscriber=reader).message_id
    assert message["Message-ID"].endswith("@blog.example>")
    # RFC 8058: an https link, and the header that makes one POST to it enough.
    link = one_click_link(message)
    assert link.startswith(f"{SITE}/en/unsubscribe/")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["List-Id"].endswith("<notes.blog.example>")
    # The one-click POST a mail client sends: no cookie, no CSRF token.
    response = client.post(link.removeprefix(SITE), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    reader.refresh_from_db()
    assert reader.state == SubscriberState.UNSUBSCRIBED


def test_the_html_is_inline_styled_with_absolute_images_and_no_tracking(smtp_server, site):
    note = make_note(slug="attention", body=BODY, language="en")
    reader, received = emailed(smtp_server, note, wants=Wants.ENGLISH)
    html, _ = parts(received.message)
    doc = BeautifulSoup(html, "html.parser")
    assert doc.find("style") is None and doc.find("link") is None
    # Code coloured by inline styles (Gmail drops classes): a keyword and a comment.
    keyword = doc.select_one(".highlight span.k")
    assert keyword.get_text() == "def" and "color" in keyword["style"]
    assert "font-style: italic" in doc.select_one(".highlight span.c1")["style"]
    assert "white-space: pre-wrap" in doc.select_one(".highlight pre")["style"]
    # The table, bordered cell by cell.
    cells = doc.select("table td, table th")
    assert {c.get_text(strip=True) for c in cells} >= {"GPU", "Memory", "H100", "80 GB"}
    assert all("border" in c["style"] for c in cells if c.get_text(strip=True) == "H100")
    # Images: the note's own, absolute, with their alt text, none wider than the column.
    images = doc.find_all("img")
    assert [(img["src"], img["alt"]) for img in images] == [
        (f"{SITE}/media/uploads/warp.png", "A warp scheduler"),
        (f"{SITE}/media/uploads/wide.png", "A wide photo"),
    ]
    wide = images[1]
    assert (wide["width"], wide["height"]) == ("584", "438")
    assert "max-width: 100%" in wide["style"]
    # Links as the author wrote them (made absolute), never rewritten through a tracker.
    hrefs = {a["href"] for a in doc.find_all("a")}
    assert "https://arxiv.org/abs/1706.03762" in hrefs
    assert f"{SITE}/en/notes/kernels/" in hrefs or f"{SITE}/notes/kernels/" in hrefs
    assert all(h.startswith((SITE + "/", "https://arxiv.org/")) for h in hrefs), hrefs
    # The site's name, the note's link, and a visible unsubscribe link.
    note_url = f"{SITE}/en/notes/attention/"
    assert doc.select_one("h1 a")["href"] == note_url
    assert doc.find("a", string="Read on the site")["href"] == note_url
    assert doc.find(string=lambda s: s and "GPU 笔记" in s) is not None
    unsubscribe = doc.find("a", string="Unsubscribe")["href"]
    assert unsubscribe == one_click_link(received.message)


def test_formulas_read_as_tex_without_mathml_and_as_text_in_the_text_part(smtp_server, site):
    note = make_note(slug="attention", body=BODY, language="en")
    _, received = emailed(smtp_server, note, wants=Wants.ENGLISH)
    html, text = parts(received.message)
    doc = BeautifulSoup(html, "html.parser")
    # No MathML left for Gmail or Outlook to drop: the TeX, as written, in code.
    assert doc.find("math") is None
    formulas = [code.get_text() for code in doc.select("code.math")]
    assert formulas == [r"$QK^\top/\sqrt{d}$", r"$$\sum_{i=1}^{n} e^{x_i}$$"]
    # A client without MathML shows the TeX (html2text stands in for it).
    shown = html2text.HTML2Text(bodywidth=0).handle(html)
    assert r"QK^\top/\sqrt{d}" in shown and r"\sum_{i=1}^{n} e^{x_i}" in shown
    # The text part reads like the feed in a text reader: the formula's linear form.
    assert "QK^⊤/√d" in text
    assert "∑_(i=1)^n e^(x_i)" in text
    assert "\\sqrt" not in text


def test_the_text_part_reads_like_the_feed(smtp_server, site):
    note = make_note(title="Attention", slug="attention", body=BODY, language="en")
    _, received = emailed(smtp_server, note, wants=Wants.ENGLISH)
    _, text = parts(received.message)
    lines = text.splitlines()
    assert lines[0] == "GPU 笔记" and "Attention" in lines
    assert f"{SITE}/en/notes/attention/" in lines
    assert "## Attention" in lines
    assert "paper <https://arxiv.org/abs/1706.03762>" in text
    assert "```Python" in lines and "def softmax(x):" in lines  # code verbatim, fenced
    assert "    return x.exp() / x.exp().sum()  # no max trick" in lines
    assert "| H100 | 80 GB |" in lines
    assert f"[A warp scheduler] <{SITE}/media/uploads/warp.png>" in text
    assert "[1]" in text and "1. Vaswani et al." in lines
    unsubscribe = one_click_link(received.message)
    assert f"Unsubscribe: {unsubscribe}" in lines
    assert "<" not in text.replace("<http", "").replace("<" + SITE, "")  # no markup left


def test_the_wording_is_the_notes_language(smtp_server, site):
    note = make_note(title="注意力", slug="zhuyili", body="正文。", language=Language.CHINESE)
    _, received = emailed(smtp_server, note, wants=Wants.CHINESE)
    html, text = parts(received.message)
    doc = BeautifulSoup(html, "html.parser")
    assert doc.html["lang"] == "zh-Hans"
    assert received.message["Content-Language"] == "zh-Hans"
    with translation.override("zh-hans"):
        read_on, unsubscribe = (
            translation.gettext("Read on the site"),
            translation.gettext("Unsubscribe"),
        )
    assert doc.find("a", string=read_on)["href"] == f"{SITE}/notes/zhuyili/"
    assert doc.find("a", string=unsubscribe) is not None
    assert f"{unsubscribe}: " in text


def test_no_unsubscribe_mailto_unless_a_mailbox_reads_it(smtp_server, site, settings):
    settings.BIJI_MAIL_UNSUBSCRIBE_MAILTO = "leave@blog.example"
    note = make_note(slug="attention", body="Body.", language="en")
    _, received = emailed(smtp_server, note, wants=Wants.ENGLISH)
    https, mailto = (part.strip() for part in received.message["List-Unsubscribe"].split(","))
    assert https.startswith(f"<{SITE}/") and mailto == (
        "<mailto:leave@blog.example?subject=unsubscribe>"
    )
