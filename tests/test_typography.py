"""Chinese typography in what readers see: line breaks, joins, contents titles, time stamps."""

import re

import pytest
from bs4 import BeautifulSoup

from blog.models import Language
from blog.rendering import render_markdown
from tests.factories import make_note

VALID_DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)$")


def test_inline_math_and_the_punctuation_after_it_break_together():
    html = render_markdown("启动延迟约 $5\\,\\mu s$，远小于 $t_{launch}$。然后 $x$ 继续").html
    spans = BeautifulSoup(html, "html.parser").select("span.math-inline")
    assert [span.get_text()[-1] for span in spans] == ["，", "。"]
    assert all(span.math is not None for span in spans)
    # No punctuation follows the third formula: it is not wrapped.
    assert html.count('class="math-inline"') == 2


def test_paragraphs_of_chinese_sentences_join_without_a_space():
    rendered = render_markdown("第一段到此结束。\n\n第二段开始了！\n\n## 小节\n\n正文")
    assert rendered.excerpt.startswith("第一段到此结束。第二段开始了！")
    # A heading has no closing punctuation: it stays apart from the text after it.
    assert "小节 正文" in rendered.plain_text


def test_an_authors_own_space_is_kept():
    assert render_markdown("这是 **第一段**。").excerpt == "这是 第一段。"


def test_subscripts_and_superscripts_stay_readable_in_excerpts():
    excerpt = render_markdown("启动时间 $t_{launch}$ 与 $x^2$ 以及 $a_i^2$。").excerpt
    assert "t_launch" in excerpt and "x^2" in excerpt and "a_i^2" in excerpt


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "title"), [(Language.CHINESE, "目录"), (Language.ENGLISH, "Contents")]
)
def test_the_authors_toc_is_a_titled_navigation_landmark_in_the_notes_language(
    client, language, title
):
    note = make_note(language=language, body="[TOC]\n\n## 一\n\n正文\n\n## 二\n\n正文")
    page = BeautifulSoup(client.get(note.get_absolute_url()).content, "html.parser")
    (toc,) = page.select("nav.toc")  # the page's own box is not added beside the author's
    heading = toc.find("h2")
    assert heading.get_text() == title and toc["aria-labelledby"] == heading["id"]
    assert [a.get_text() for a in toc.select("li a")] == ["一", "二"]


@pytest.mark.django_db
def test_time_stamps_are_valid_html_datetimes(client):
    note = make_note(body="正文")
    for url in ("/", "/en/", note.get_absolute_url()):
        page = BeautifulSoup(client.get(url).content, "html.parser")
        stamps = [t["datetime"] for t in page.select("time[datetime]") if "T" in t["datetime"]]
        assert stamps and all(VALID_DATETIME.match(stamp) for stamp in stamps), stamps


@pytest.mark.django_db
def test_interface_strings_follow_chinese_punctuation(client):
    from datetime import date

    original = make_note(
        slug="worklog",
        source_title="Decode GEMV worklog",
        source_author="Ines Okafor",
        source_url="https://example.com/worklog",
        source_date=date(2025, 12, 20),
    )
    make_note(
        slug="worklog-en", language=Language.ENGLISH, title="The worklog", translation=original
    )
    zh = BeautifulSoup(client.get("/notes/worklog/").content, "html.parser")
    assert zh.select_one(".source-box p").get_text().strip() == (
        "译文 原文：Decode GEMV worklog，作者 Ines Okafor，2025年12月20日。"
    )
    assert "英文版：The worklog" in zh.select_one(".translation-link").get_text()
    en = BeautifulSoup(client.get("/en/notes/worklog/").content, "html.parser")
    assert en.select_one(".source-box p").get_text().strip() == (
        "Translated article Original: Decode GEMV worklog, by Ines Okafor, Dec. 20, 2025."
    )
    assert "Also in English: The worklog" in en.select_one(".translation-link").get_text()


def test_latin_runs_touching_chinese_are_spaced_without_adding_characters():
    source = "在H100上超越cuBLAS，用 `kernel里` 的代码。"
    rendered = render_markdown(source)
    spans = BeautifulSoup(rendered.html, "html.parser").select("span.autospace")
    assert [span.get_text() for span in spans] == ["H100", "cuBLAS"]  # code stays as it is
    assert rendered.plain_text == "在H100上超越cuBLAS，用 kernel里 的代码。"


def test_function_names_are_set_against_their_brackets_and_keep_no_backslash():
    html = render_markdown("$\\arg\\max_x \\operatorname{softmax}(x)$ and $\\max x$").html
    assert "<mi>arg</mi>" in html and "<mi>\\arg</mi>" not in html
    assert "<mi>softmax</mi><mo" in html  # an identifier before its bracket: no operator gap
    assert "<mo>max</mo><mi>x</mi>" in html  # before a letter the operator keeps its space
    assert "<mo>,</mo>" not in render_markdown("`x`, y").html  # code: no math involved
    assert '<code class="punct-after">x</code>,' in render_markdown("`x`, y").html
