"""An excerpt is whole sentences that make sense alone, once math, code and tables are gone.

What readers see: the home page's excerpt, a feed item's description and the admin's derived
summary are all the stored ``excerpt``.
"""

import feedparser
import pytest

from blog.rendering import render_markdown
from blog.text.sentences import sentence_spans
from blog.text.stats import LEFT_OUT, PARAGRAPH_BREAK, make_excerpt
from tests.factories import make_note

PIPELINE_ZH = """流水线把加载和计算重叠起来。总时间可以写成：

$$
T_{\\text{total}} = \\sum_{i=1}^{n} \\max(t_i^{\\text{load}}, t_i^{\\text{compute}})
$$

测得的结果如下：

| 阶段 | 时间 |
| --- | ---: |
| load | 3 ms |

注：以上数据在 H100 上测得。
"""
PIPELINE_EN = """Pipelining overlaps loads with compute. The total time is

$$
T_{\\text{total}} = \\sum_{i=1}^{n} \\max(t_i^{\\text{load}}, t_i^{\\text{compute}})
$$

where $t_i$ is the time of stage $i$.

```python
print("measured")
```

Measured on an H100 SXM5.
"""


def test_sentences_that_introduced_a_formula_or_a_table_go_with_it():
    assert (
        render_markdown(PIPELINE_ZH).excerpt
        == "流水线把加载和计算重叠起来。注：以上数据在 H100 上测得。"
    )


def test_an_english_sentence_a_formula_cut_in_two_goes_whole():
    assert render_markdown(PIPELINE_EN).excerpt == (
        "Pipelining overlaps loads with compute. Measured on an H100 SXM5."
    )


def test_code_introduced_by_a_colon_takes_its_introduction_along():
    body = "先在 CPU 上验证。参考实现如下：\n\n```python\nx = 1\n```\n\n结果一致。"
    assert render_markdown(body).excerpt == "先在 CPU 上验证。结果一致。"


def test_a_new_chinese_sentence_after_a_formula_is_kept_even_if_it_starts_in_latin():
    body = "attention 定义为\n\n$$\nO = PV\n$$\n\nnaive 实现会把 $S$ 写回 HBM。"
    assert render_markdown(body).excerpt == "naive 实现会把 S 写回 HBM。"


def test_inline_math_reads_as_in_text_readers():
    excerpt = render_markdown("$S$ 有约 $6.7 \\times 10^7$ 个元素，$\\sqrt{d}$ 是缩放。").excerpt
    assert excerpt == "S 有约 6.7×10^7 个元素，√d 是缩放。"


def test_whole_sentences_up_to_the_limit_without_an_ellipsis():
    sentence = "并行计算是指同时使用多种计算资源解决计算问题的过程。"  # 26 characters
    excerpt = make_excerpt(sentence * 10)
    assert excerpt == sentence * 4  # a fifth would pass 120
    english = "The warp scheduler issues one instruction per cycle."  # 8 words
    assert make_excerpt(f"{english} " * 10) == " ".join([english] * 6)  # a seventh: 56 words


def test_only_a_first_sentence_longer_than_the_limit_is_cut():
    excerpt = make_excerpt("很长的一句话，" * 30 + "完。后面一句。")
    assert excerpt.endswith("…") and len(excerpt) <= 121


def test_a_note_where_no_sentence_stands_alone_is_excerpted_with_its_blocks():
    assert render_markdown("代码如下：\n\n```c\nint x;\n```").excerpt == "代码如下： int x;"
    assert render_markdown("```c\nint x;\n```").excerpt == "int x;"
    assert make_excerpt(f"代码如下：{LEFT_OUT}") == ""  # the renderer falls back to the whole text


def test_markers_never_reach_the_excerpt():
    text = f"第一段。{PARAGRAPH_BREAK}第二段开始{LEFT_OUT}{PARAGRAPH_BREAK}Next one."
    excerpt = make_excerpt(text)
    assert excerpt == "第一段。 Next one."
    assert PARAGRAPH_BREAK not in excerpt and LEFT_OUT not in excerpt


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("第一句。第二句！第三句？", ["第一句。", "第二句！", "第三句？"]),
        ("他说：“好。”然后走了。", ["他说：“好。”", "然后走了。"]),
        (
            "Pi is 3.14. E.g. this, i.e. that. Dr. Who left.",
            ["Pi is 3.14.", "E.g. this, i.e. that.", "Dr. Who left."],
        ),
        ("真的吗?下一句。", ["真的吗?", "下一句。"]),
        ("没有句号的一段", ["没有句号的一段"]),
    ],
)
def test_sentence_boundaries(text, sentences):
    assert [text[start:end] for start, end in sentence_spans(text)] == sentences


@pytest.mark.django_db
def test_home_page_and_feed_show_the_sentence_excerpt(client):
    note = make_note(slug="pipeline", body=PIPELINE_ZH)
    expected = "流水线把加载和计算重叠起来。注：以上数据在 H100 上测得。"
    assert note.excerpt == expected
    assert expected in client.get("/").content.decode()
    entry = next(e for e in feedparser.parse(client.get("/feed/").content).entries)
    assert entry.summary == expected
