"""The Markdown pipeline: what an author writes and what a reader gets (no database needed)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from blog.rendering import Rendered, render_markdown, render_preview

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py


def soup(html):
    return BeautifulSoup(html, "html.parser")


def body(text):
    return soup(render_markdown(text).html)


# --- code -------------------------------------------------------------------------------------


def test_fenced_python_is_highlighted_with_pygments_classes_and_a_language_label():
    doc = body("```python\ndef add(a, b):\n    return a + b  # sum\n```")
    block = doc.select_one("div.highlight")
    assert block.select_one("span.filename").get_text() == "Python"
    assert block.select_one("pre code span.k").get_text() == "def"
    assert block.select_one("span.nf").get_text() == "add"
    assert block.select_one("span.c1").get_text() == "# sum"
    assert "style" not in str(block)  # classes, not inline colours


@pytest.mark.parametrize(
    ("lang", "label", "source", "token"),
    [
        ("cpp", "C++", "int main() { return 0; }", "kt"),
        ("cuda", "CUDA", "__global__ void k(float *a) { a[threadIdx.x] = 0; }", "kr"),
        ("bash", "Bash", "export N=4 && echo $N", "nb"),
    ],
)
def test_other_languages_are_highlighted_and_labelled(lang, label, source, token):
    doc = body(f"```{lang}\n{source}\n```")
    assert doc.select_one("div.highlight span.filename").get_text() == label
    assert doc.select(f"div.highlight code span.{token}")


def test_code_without_language_has_no_label_and_shows_html_as_text():
    doc = body("```\n<script>alert(1)</script> $x$\n```")
    assert doc.select_one("div.highlight span.filename") is None
    assert doc.select_one("code").get_text() == "<script>alert(1)</script> $x$\n"
    assert doc.find("script") is None and doc.find("math") is None


def test_inline_code():
    doc = body("调用 `cudaMalloc(&p, n)` 分配显存")
    assert doc.select_one("p code").get_text() == "cudaMalloc(&p, n)"


# --- structure ---------------------------------------------------------------------------------


def test_tables_keep_alignment_without_style_attributes():
    doc = body("| GPU | TFLOPS |\n|:----|-------:|\n| H100 | 989 |\n")
    assert [th.get_text() for th in doc.select("thead th")] == ["GPU", "TFLOPS"]
    assert [td.get_text() for td in doc.select("tbody td")] == ["H100", "989"]
    assert doc.select("td")[1]["align"] == "right"
    assert not doc.select("[style]")


def test_footnotes_link_both_ways_with_unique_ids():
    doc = body("第一处[^a]，第二处[^b]。\n\n[^a]: 注释 A。\n[^b]: 注释 B。\n")
    refs = doc.select("sup a.footnote-ref")
    assert len(refs) == 2
    for ref in refs:
        target = doc.find(id=ref["href"][1:])
        assert target is not None and target.name == "li"
        back = target.select_one("a.footnote-backref")
        assert doc.find(id=back["href"][1:]).name == "sup"
    ids = [el["id"] for el in doc.select("[id]")]
    assert len(ids) == len(set(ids)) == 4


def test_task_lists_are_disabled_checkboxes_only():
    doc = body("- [x] 写完 kernel\n- [ ] benchmark\n")
    boxes = doc.select("ul.task-list li.task-list-item input")
    assert [box.get("type") for box in boxes] == ["checkbox", "checkbox"]
    assert all(box.has_attr("disabled") for box in boxes)
    assert [box.has_attr("checked") for box in boxes] == [True, False]
    assert not doc.select("form, button, select, textarea")


@pytest.mark.parametrize(
    "text",
    ["- [x] 写完 **kernel**\n- [ ] benchmark\n", "1. [x] 写完 **kernel**\n\n2. [ ] benchmark\n"],
    ids=["tight", "loose"],
)
def test_each_task_checkbox_is_labelled_by_its_text(text):
    labels = body(text).select("li.task-list-item label")
    assert [label.get_text(" ", strip=True) for label in labels] == ["写完 kernel", "benchmark"]
    assert all(label.select_one("input[type=checkbox][disabled]") for label in labels)


def test_a_nested_task_list_stays_outside_its_parent_s_label():
    doc = body("- [ ] 父任务\n    - [x] 子任务\n")
    outer = doc.select_one("ul.task-list > li > label, ul.task-list > li > p > label")
    assert outer.get_text(strip=True) == "父任务"
    assert not outer.select("ul")


def test_admonitions_and_details():
    doc = body('!!! note "标题"\n    内容\n\n??? warning "展开"\n    隐藏内容\n')
    admonition = doc.select_one("div.admonition.note")
    assert admonition.select_one("p.admonition-title").get_text() == "标题"
    assert "内容" in admonition.get_text()
    details = doc.select_one("details.warning")
    assert details.summary.get_text() == "展开"


def test_strikethrough_but_tilde_ranges_stay_text():
    doc = body("~~旧方法~~ 第 1~5、10~20 页")
    assert doc.select_one("del").get_text() == "旧方法"
    assert doc.find("sub") is None
    assert "1~5、10~20" in doc.get_text()


# --- headings and table of contents ----------------------------------------------------------


CHINESE_HEADINGS = """[TOC]

## 为什么需要并行计算？

正文。

### 线程与 Warp

## 为什么需要并行计算？

再来一次。
"""


def test_toc_marker_is_replaced_and_toc_html_lists_the_headings():
    rendered = render_markdown(CHINESE_HEADINGS)
    doc = soup(rendered.html)
    assert "[TOC]" not in rendered.html
    assert doc.select_one("nav.toc ul li a") is not None
    toc = soup(rendered.toc_html)
    assert rendered.toc_html.startswith("<ul>")
    assert [a.get_text() for a in toc.select("a")] == [
        "为什么需要并行计算？",
        "线程与 Warp",
        "为什么需要并行计算？",
    ]
    for link in toc.select("a"):
        heading = doc.find(id=link["href"][1:])
        assert heading is not None and heading.name in {"h2", "h3"}


def test_chinese_heading_ids_are_readable_unique_and_stable():
    first = soup(render_markdown(CHINESE_HEADINGS).html)
    second = soup(render_markdown(CHINESE_HEADINGS).html)
    ids = [h["id"] for h in first.select("h2, h3") if h["id"] != "toc-title"]
    assert ids[0] == "为什么需要并行计算"
    assert ids[1] == "线程与-warp"
    assert ids[2] != ids[0] and ids[2].startswith("为什么需要并行计算")
    assert ids == [h["id"] for h in second.select("h2, h3") if h["id"] != "toc-title"]
    permalink = first.select_one("h2 a.headerlink")
    assert permalink["href"] == "#为什么需要并行计算"
    assert not permalink.has_attr("title")  # no English text inside a Chinese note


def test_no_headings_means_no_toc():
    rendered = render_markdown("[TOC]\n\n只有一段话。")
    assert rendered.toc_html == ""
    assert "toc" not in rendered.html and "[TOC]" not in rendered.html


def test_preview_is_the_same_html_including_the_toc():
    assert render_preview(CHINESE_HEADINGS) == render_markdown(CHINESE_HEADINGS).html
    assert 'class="toc"' in render_preview(CHINESE_HEADINGS)


# --- math --------------------------------------------------------------------------------------


def test_inline_math_becomes_mathml_with_tex_annotation():
    doc = body(r"质能方程 $E = mc^2$ 和 \(a < b\) 都是行内公式。")
    maths = doc.select("p math")
    assert [m["display"] for m in maths] == ["inline", "inline"]
    assert maths[0].select_one("msup") is not None
    assert maths[0].select_one('annotation[encoding="application/x-tex"]').get_text() == (
        "E = mc^2"
    )
    assert maths[1].annotation.get_text() == "a < b"


@pytest.mark.parametrize("source", ["$$\n\\sum_{i=1}^{n} x_i\n$$", "\\[\n\\sum_{i=1}^{n} x_i\n\\]"])
def test_display_math_is_a_block(source):
    doc = body(f"求和：\n\n{source}\n\n结束。")
    math = doc.select_one("div.math-display > math")
    assert math["display"] == "block"
    assert math.select_one("munderover, msubsup") is not None


def test_dollar_amounts_in_prose_stay_text():
    doc = body("It costs $5 and $10, 或者 US$5-$10，还有 \\$x\\$。")
    assert doc.find("math") is None
    assert "$5 and $10" in doc.get_text()
    assert "$x$" in doc.get_text()


def test_math_inside_code_stays_literal():
    doc = body("`$x^2$` and\n\n```python\nprice = '$a$'\n```\n\n    $$b$$\n")
    assert doc.find("math") is None
    assert "$x^2$" in doc.select("code")[0].get_text()
    assert "'$a$'" in doc.select("code")[1].get_text()
    assert "$$b$$" in doc.select("code")[2].get_text()


@pytest.mark.parametrize("tex", ["$x^$", "$\\frac{$", "$$\n\\begin{matrix}\n$$"])
def test_invalid_tex_shows_its_source_instead_of_raising(tex):
    doc = body(f"坏公式 {tex} 之后")
    error = doc.select_one("code.math-error")
    assert error is not None and tex.replace("\n", "").strip("$") in error.get_text()


def test_math_text_cannot_inject_html():
    doc = body(r"$\text{<img src=x onerror=alert(1)>}$")
    assert doc.find("img") is None
    assert "<img" in doc.select_one("mtext").get_text()


# --- links and images --------------------------------------------------------------------------


def test_images_are_lazy_and_async():
    doc = body('![架构图](/media/arch.png "GPU")\n\n<img src="/media/raw.png" alt="raw">')
    for img in doc.select("img"):
        assert img["loading"] == "lazy" and img["decoding"] == "async"
    assert doc.select_one("img")["alt"] == "架构图"


def test_external_links_get_rel_and_internal_links_do_not():
    doc = body(
        "[外链](https://developer.nvidia.com/cuda) [http](http://example.org) "
        "[内链](/notes/gpu/) [相对](notes/x/) [锚点](#intro) [邮件](mailto:a@b.example)"
    )
    links = {a.get_text(): a for a in doc.select("a")}
    assert links["外链"]["rel"] == ["noopener", "noreferrer"]
    assert links["http"]["rel"] == ["noopener", "noreferrer"]
    for name in ["内链", "相对", "锚点", "邮件"]:
        assert not links[name].has_attr("rel"), name


# --- derived fields ----------------------------------------------------------------------------


def test_plain_text_has_code_and_tex_but_no_toc_or_permalinks():
    rendered = render_markdown("[TOC]\n\n## 标题\n\n正文\n段落\n\n```python\nx  =  1\n```\n\n$a+b$")
    assert rendered.plain_text == "标题 正文段落 x = 1 a+b"


def test_excerpt_is_prose_only():
    rendered = render_markdown(
        "[TOC]\n\n## 背景\n\n在 **H100** 上超越 cuBLAS[^1]，复杂度 $O(n^2)$。\n\n"
        "```cuda\n__global__ void k() {}\n```\n\n$$\nE=mc^2\n$$\n\n[^1]: 脚注不进摘要。\n"
    )
    assert rendered.excerpt == "在 H100 上超越 cuBLAS，复杂度 O(n^2)。"


def test_empty_body():
    assert render_markdown("") == Rendered("", "", "", "", 0, 1)


def test_word_count_and_reading_time_cover_the_whole_body():
    rendered = render_markdown("并行" * 600 + "\n\n```python\nprint(1)\n```")
    assert rendered.word_count == 1200 + 2
    assert rendered.reading_minutes == 5


def test_output_is_stable_across_processes():
    """Stored HTML must not depend on hash seeds (nh3 and sets are easy to get wrong)."""
    text = CHINESE_HEADINGS + "\n\n- [x] done\n\n![i](/a.png) [e](https://e.example)\n\n$x$"
    script = (
        "import sys; from blog.rendering import render_markdown as r; "
        "sys.stdout.write(r(sys.stdin.read()).html)"
    )
    root = Path(__file__).resolve().parent.parent
    outputs = {
        subprocess.run(  # noqa: S603 - our own interpreter and a fixed script
            [sys.executable, "-c", script],
            input=text,
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ["1", "2", "3"]
    }
    assert outputs == {render_markdown(text).html}
