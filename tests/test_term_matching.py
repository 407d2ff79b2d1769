"""The term matcher marks the first use of each glossary term in each section of a note's HTML:
Chinese inside sentences without spaces, English on word boundaries, never in code, math,
links or headings, and leaves every other byte of the HTML as it was."""

import re

import pytest
from bs4 import BeautifulSoup

from blog.rendering import render_markdown
from blog.rendering.terms import TermEntry, TermMatcher, tip_html

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py


def entry(slug, *forms, tip="", lang="en"):
    return TermEntry(slug, forms, f"/glossary/#{slug}", tip, lang)


WARP = entry("warp", "warp", "线程束", tip="A group of <code>32</code> threads.")
WGMMA = entry("wgmma", "wgmma", "WGMMA", tip="Warpgroup MMA.")
SHARED = entry("shared-memory", "shared memory", "共享内存", tip="On-chip memory.")
MEMORY = entry("memory", "memory", "内存", tip="Memory.")
MATCHER = TermMatcher([WARP, WGMMA, SHARED, MEMORY])


def marked(markdown, matcher=MATCHER):
    return matcher.mark(render_markdown(markdown).html)


def terms(html):
    """The text of each marked term, in order."""
    return [link.get_text() for link in BeautifulSoup(html, "html.parser").select("a.term-link")]


def without_marks(html):
    """The HTML with each mark replaced by what it marks, as the marks leave it."""
    return re.sub(
        r'<span class="term"><a class="term-link"[^>]*>(.*?)</a>(<span class="term-tip"[^>]*>'
        r"(?:[^<]|<(?!/span></span>))*</span>)?</span>",
        r"\1",
        html,
    )


def test_a_chinese_term_is_found_inside_a_sentence_without_spaces():
    result = marked("每个线程束都有 32 个线程。")
    assert terms(result.html) == ["线程束"]
    assert '每个<span class="term">' in result.html
    assert result.used == {"warp"}


def test_the_markup_links_the_glossary_anchor_and_describes_it_with_the_tip():
    link = BeautifulSoup(marked("A warp runs.").html, "html.parser").select_one("span.term")
    anchor, tip = link.find("a"), link.select_one(".term-tip")
    assert anchor["href"] == "/glossary/#warp" and anchor["class"] == ["term-link"]
    assert tip["role"] == "tooltip" and tip["lang"] == "en"
    assert anchor["aria-describedby"] == tip["id"] == "term-warp-1"
    assert tip.decode_contents() == "A group of <code>32</code> threads."


def test_english_terms_need_word_boundaries_but_not_against_dots_or_hyphens():
    result = marked("warps and rewarp and warp_size; then wgmma.mma_async and warp-level.")
    assert terms(result.html) == ["wgmma", "warp"]
    assert ">wgmma</a>" in result.html and "</span></span>.mma_async" in result.html


def test_english_terms_match_in_any_case_and_next_to_chinese():
    assert terms(marked("调用WGMMA指令").html) == ["WGMMA"]
    assert terms(marked("Each Warp runs.").html) == ["Warp"]


def test_the_longest_form_wins_and_a_shorter_term_inside_it_is_not_used():
    result = marked("Data in shared memory is fast.")
    assert terms(result.html) == ["shared memory"]
    assert result.used == {"shared-memory"}
    assert terms(marked("每块共享内存").html) == ["共享内存"]


def test_a_multi_word_term_across_autospace_spans_is_marked_whole():
    result = marked("数据在shared memory中")
    assert '<span class="autospace">shared</span> <span class="autospace">memory</span>' in (
        result.html
    )
    assert terms(result.html) == ["shared memory"]
    assert without_marks(result.html) == render_markdown("数据在shared memory中").html


def test_only_the_first_use_in_each_section_is_marked():
    result = marked(
        "A warp, another warp, a 线程束.\n\n## Next\n\nThe warp again, and again a warp.\n"
    )
    assert terms(result.html) == ["warp", "warp"]
    ids = [tip["id"] for tip in BeautifulSoup(result.html, "html.parser").select(".term-tip")]
    assert ids == ["term-warp-1", "term-warp-2"]


def test_nothing_is_marked_in_code_math_links_or_headings():
    result = marked(
        """## warp scheduling

`warp` in code, $warp$ in math, [warp](https://example.com) in a link.

$$
\\text{warp}
$$

```cuda
int warp = threadIdx.x / 32;  // wgmma
```

<kbd>warp</kbd>
"""
    )
    assert terms(result.html) == []
    assert result.used == set()


def test_the_html_outside_the_marks_stays_byte_for_byte():
    markdown = """# 调度 & warp

每个线程束都有 <b>32</b> 个线程 &amp; 一个 warp-level 调度器，见[^1]。

| 表 | shared memory |
| --- | --- |
| `wgmma` | wgmma.mma_async |

- WGMMA 与 $x < y$
- 共享内存

[^1]: 脚注里的 warp。
"""
    html = render_markdown(markdown).html
    result = MATCHER.mark(html)
    assert terms(result.html) == ["线程束", "shared memory", "wgmma"]
    assert without_marks(result.html) == html
    # and the matcher changes nothing where it finds nothing
    assert TermMatcher([entry("absent", "nowhere")]).mark(html).html == html


def test_marking_again_marks_nothing_more():
    once = marked("A warp.").html
    assert MATCHER.mark(once).html == once


def test_a_form_two_terms_share_belongs_to_the_first():
    matcher = TermMatcher([entry("cta", "CTA", "线程块"), entry("block", "block", "线程块")])
    assert matcher.mark("<p>一个线程块</p>").used == {"cta"}


def test_an_empty_glossary_returns_the_html_as_it_is():
    html = render_markdown("warp").html
    assert TermMatcher([]).mark(html).html == html


def test_a_term_without_definition_is_a_link_without_tooltip():
    result = TermMatcher([entry("warp", "warp")]).mark("<p>a warp</p>")
    assert result.html == (
        '<p>a <span class="term"><a class="term-link" href="/glossary/#warp">warp</a></span></p>'
    )


def test_the_tip_is_the_first_paragraph_inline_without_links():
    definition = render_markdown(
        "一组 32 个[线程](/notes/threads/)，\n同时执行 `mma` 与 *$x^2$*[^1]。\n\n"
        "第二段。\n\n[^1]: 注。"
    ).html
    tip = tip_html(definition)
    assert tip.startswith("一组 32 个线程，同时执行 <code>mma</code> 与 <em><math")
    assert (
        not re.search("<a[ >]", tip)
        and "第二段" not in tip
        and "<p" not in tip
        and "fnref" not in tip
    )
    assert tip_html("<ul><li>only a list</li></ul>") == ""


def test_five_hundred_terms_on_a_long_note():
    entries = [
        entry(f"term-{n}", f"term{n}", f"术语{n}号", tip=f"Definition {n}.") for n in range(500)
    ]
    matcher = TermMatcher(entries)
    sections = []
    for section in range(40):
        words = " ".join(f"term{(section * 7 + n) % 500}" for n in range(300))
        sections.append(
            f"## Part {section}\n\n{words}\n\n每个术语{section}号都在术语{section + 1}号里。\n"
        )
    result = matcher.mark(render_markdown("\n".join(sections)).html)
    soup = BeautifulSoup(result.html, "html.parser")
    assert len(result.used) == 500
    # every term once per section: 300 English ones and the Chinese pair, unless repeated
    first_section = soup.select("h2")[0].find_next_sibling("p")
    assert len(first_section.select("a.term-link")) == 300
    assert len({tip["id"] for tip in soup.select(".term-tip")}) == len(soup.select(".term-tip"))
