"""Formulas in feeds read unambiguously in text feed readers and stay MathML for the others.

The binding reader is html2text (the converter terminal and e-mail feed readers use); newsboat,
when installed, is checked too. Chromium's rendering of the same feed HTML is checked in
tests/browser/test_feed_math.py.
"""

import shutil
import subprocess
import time
from pathlib import Path

import feedparser
import html2text
import pytest
from bs4 import BeautifulSoup

import blog.ops.demo
from blog.rendering import render_markdown
from blog.rendering.feed_html import feed_html
from blog.rendering.math_text import read_math
from tests.factories import make_note

NOTE_URL = "https://blog.example/notes/x/"
FLASHATTENTION = Path(blog.ops.demo.__file__).parent / "notes" / "flashattention-tiling.md"
PIPELINE = r"""The total time is

$$
T_{\text{total}} = \sum_{i=1}^{n} \max(t_i^{\text{load}}, t_i^{\text{compute}})
$$

```python
print("measured")
```

Measured on an H100 SXM5. The bound is $$x+1$$ for all inputs.
"""


def demo_body(path):
    return path.read_text(encoding="utf-8").split("\n---\n", 1)[1]


def as_text(html):
    return html2text.HTML2Text(bodywidth=0).handle(html)


def lines(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


@pytest.fixture
def flashattention_entry(client, db):
    """The FlashAttention demo note's entry as a feed reader receives it."""
    note = make_note(slug="flashattention-tiling", body=demo_body(FLASHATTENTION))
    parsed = feedparser.parse(client.get("/feed/").content)
    assert not parsed.bozo
    return next(e for e in parsed.entries if e.link.endswith(note.get_absolute_url()))


def test_the_flashattention_note_reads_unambiguously_in_html2text(flashattention_entry):
    text = as_text(flashattention_entry.content[0].value)
    # Powers, roots, fractions and scripts keep what the layout said.
    assert "约 6.7×10^7 个元素" in text and "约 3×10^6 个" in text
    assert "S = QK^⊤/√d" in text
    assert "Q, K, V ∈ ℝ^(N×d)" in text
    assert "O = softmax((QK^⊤)/√d)V" in lines(text)
    assert "m^(j) = max(m^(j−1), rowmax(S^(j)))" in lines(text)
    assert "ℓ^(j) = e^(m^(j−1)−m^(j)) ℓ^(j−1)+rowsum(e^(S^(j)−m^(j)))" in lines(text)
    assert "Θ(N^2 d^2/M)" in text and "大小为 B_r 的 tile" in text
    # Each formula once: no flattened copy beside the marked one, no TeX source.
    for flattened in ["6.7×107", "3×106", "QK⊤/d", "Θ(N2d2/M)", "ℓ(j)="]:
        assert flattened not in text
    assert "\\" not in text and "operatorname" not in text


def test_the_flashattention_note_still_carries_mathml(flashattention_entry):
    doc = BeautifulSoup(flashattention_entry.content[0].value, "html.parser")
    formulas = doc.find_all("math")
    assert len(formulas) > 40
    power = next(m for m in formulas if m["alttext"] == r"6.7 \times 10^7")
    assert [el.get_text() for el in power.msup.find_all(["mn", "mi"])] == ["10", "7"]
    # The text reading rides in annotations, which MathML shows only as the first child of
    # <semantics>: always an empty row here.
    marks = power.find_all("annotation", encoding="text/plain")
    assert [m.get_text() for m in marks] == ["^"]
    for mark in doc.find_all("annotation", encoding="text/plain"):
        semantics = mark.parent
        assert semantics.name == "semantics"
        first = semantics.find(True)
        assert first.name == "mrow" and not first.contents


def test_display_math_is_a_line_of_its_own_before_a_code_label():
    text = as_text(feed_html(render_markdown(PIPELINE).html, NOTE_URL))
    assert lines(text)[:3] == [
        "The total time is",
        "T_total = ∑_(i=1)^n max(t_i^load, t_i^compute)",
        "Python",
    ]
    # Display math written inside a paragraph is broken out of it too.
    assert "The bound is\nx+1\nfor all inputs." in "\n".join(lines(text))


def test_display_math_is_in_a_block_every_text_reader_knows():
    """newsboat knows <p> but not <div>: a formula in a <div> runs into the next line."""
    doc = BeautifulSoup(feed_html(render_markdown(PIPELINE).html, NOTE_URL), "html.parser")
    block = doc.find("math", display="block")
    assert block.parent.name == "p"
    assert doc.find("div", class_="math-display") is None


@pytest.mark.parametrize(
    ("tex", "reading"),
    [
        (r"\sqrt{d}", "√d"),
        (r"\sqrt{x+1}", "√(x+1)"),
        (r"\sqrt[3]{x+1}", "(x+1)^(1/3)"),
        (r"\sqrt{x}^2", "(√x)^2"),
        (r"\frac{a+b}{2n}", "(a+b)/(2n)"),
        (r"\frac{T_1}{T_p}", "T_1/T_p"),
        (r"\frac{1}{2}x", "(1/2)x"),
        (r"\binom{n}{k}", "(n choose k)"),
        (r"t_{launch} + a_{ij}", "t_launch+a_ij"),
        (r"x^{2n} x_{i,j}", "x^(2n) x_(i,j)"),
        (r"e^{-x}", "e^(−x)"),
        (r"\lim_{x \to 0} f(x)", "lim_(x→0) f(x)"),
        (r"\int_0^1 f(x)\,dx", "∫_0^1 f(x) dx"),
        (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", "(a, b; c, d)"),
        (r"\tilde{O}^{(j)}", "O~^(j)"),
    ],
)
def test_reading_rules(tex, reading):
    html = render_markdown(f"${tex}$").html
    assert read_math(html[html.index("<math") :]) == reading


def test_mathml_written_by_hand_in_any_shape_is_passed_through():
    odd = "<math><msup><mi>x</mi></msup><mfrac><mn>1</mn></mfrac><mi>y</mi></math>"
    html = f"<p>{odd}</p>"
    assert feed_html(html, NOTE_URL) == html
    broken = "<p><math><mi>x</mi></p>"
    assert feed_html(broken, NOTE_URL) == broken


@pytest.mark.skipif(shutil.which("newsboat") is None, reason="newsboat is not installed")
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_newsboat_shows_the_formulas_on_lines_of_their_own(tmp_path):
    entry = feed_html(render_markdown(PIPELINE).html, NOTE_URL)
    feed = tmp_path / "feed.xml"
    feed.write_text(
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        "<title>t</title><id>urn:t</id><updated>2025-01-01T00:00:00Z</updated><entry>"
        "<title>e</title><id>urn:e</id><updated>2025-01-01T00:00:00Z</updated>"
        f'<link href="{NOTE_URL}"/><content type="html">{escape_xml(entry)}</content>'
        "</entry></feed>",
        encoding="utf-8",
    )
    screen = newsboat_article(tmp_path, feed)
    assert "T_total = ∑_(i=1)^n max(t_i^load, t_i^compute)" in screen.splitlines()
    assert "Measured on an H100 SXM5." in screen


def escape_xml(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def newsboat_article(home, feed):
    """The first article of ``feed`` as newsboat draws it in a 100-column terminal."""
    urls, config = home / "urls", home / "config"
    urls.write_text(f"file://{feed}\n")
    config.write_text("")
    env = {"HOME": str(home), "LANG": "C.UTF-8", "TERM": "xterm", "PATH": "/usr/bin:/bin"}
    command = ["newsboat", "-u", str(urls), "-c", str(home / "cache.db"), "-C", str(config)]
    subprocess.run([*command, "-x", "reload"], env=env, check=True, timeout=30)
    session = f"biji-test-{home.name}"
    tmux = ["tmux", "-L", session]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "100", "-y", "60", " ".join(command)],
        env=env,
        check=True,
    )
    try:
        screen = ""
        for keys in ["", "Enter", "Enter"]:
            if keys:
                subprocess.run([*tmux, "send-keys", "-t", session, keys], check=True)
            screen = wait_for_screen(tmux, session, previous=screen)
        return screen
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)


def wait_for_screen(tmux, session, previous, tries=50):
    screen = previous
    for _ in range(tries):
        time.sleep(0.1)
        screen = subprocess.run(
            [*tmux, "capture-pane", "-t", session, "-p"], capture_output=True, text=True
        ).stdout
        if screen.strip() and screen != previous:
            time.sleep(0.2)  # let it finish drawing
            return subprocess.run(
                [*tmux, "capture-pane", "-t", session, "-p"], capture_output=True, text=True
            ).stdout
    return screen
