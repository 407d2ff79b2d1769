"""What a subscriber reading a note's email as plain text relies on (blog/mail/plain_text.py):
everything in the note's order, links with their addresses, formulas read as text, code
intact and set apart, headings, lists and tables readable, and Chinese without spaces a
line break of the source would leave."""

import re

import pytest

from blog.mail.note_email import NoteEmail
from blog.models import Language, Term
from tests.factories import make_note

pytestmark = pytest.mark.django_db

SITE = "https://blog.example"
BODY = r"""## 调度

GPU 上的 kernel 调度由 warp scheduler 完成，
每个周期挑选一个 ready 的 warp，
**不必**等待。Each cycle one warp
is picked. 见[论文](https://arxiv.org/abs/1706.03762)和[另一篇笔记](/notes/kernels/)，
或 <https://docs.nvidia.com/cuda/>。[^1]

分数是 $QK^\top/\sqrt{d}$，$S = T_1/T_p, \qquad E = S/p$。

```python
def softmax(x):
    return x.exp() / x.exp().sum()  # no_max * trick
```

```text
第一行
第二行
```

1. 第一步
2. 第二步

另一种列表：

- 线程
- 块

| GPU  | 显存 |
|------|------|
| H100 | 80 GB |

$$
\sum_{i=1}^{n} e^{x_i}
$$

![调度器](/media/uploads/warp.png)

### 小结

最后一段。

[^1]: Vaswani et al.
"""


@pytest.fixture
def text(settings):
    settings.SITE_URL = SITE
    note = make_note(title="调度", slug="diaodu", body=BODY, language=Language.CHINESE)
    return body_of(NoteEmail(note).text)


def body_of(email_text):
    """The note's part of the email: after its link, before the signature."""
    return email_text.split(f"{SITE}/notes/diaodu/\n", 1)[1].split("\n-- \n", 1)[0]


def line_of(text, content):
    """The line holding ``content``, stripped of the indentation and marks around it."""
    (found,) = [line for line in text.split("\n") if content in line]
    return found


def test_everything_is_there_in_the_note_s_order(text):
    order = ["## 调度", "scheduler", "softmax", "第一行", "第一步", "- 块", "H100", "∑", "调度器"]
    order += ["### 小结", "最后一段", "Vaswani"]
    places = [text.index(part) for part in order]
    assert places == sorted(places)
    assert "<" not in re.sub(r"<(https?://|/)[^>]*>", "", text)  # no markup left


def test_links_keep_their_addresses_made_absolute(text):
    assert "论文 <https://arxiv.org/abs/1706.03762>" in text
    assert f"另一篇笔记 <{SITE}/notes/kernels/>" in text
    assert "https://docs.nvidia.com/cuda/" in text
    assert f"[调度器] <{SITE}/media/uploads/warp.png>" in text
    assert "[1]" in line_of(text, "docs.nvidia.com") and "1. Vaswani et al." in text


def test_formulas_read_as_text(text):
    assert "QK^⊤/√d" in text
    assert "S = T_1/T_p, E = S/p" in text  # one space where two text marks meet
    assert "∑_(i=1)^n e^(x_i)" in text
    assert "\\sqrt" not in text and "\\_" not in text


def test_code_is_intact_and_set_apart(text):
    lines = text.split("\n")
    first = lines.index(line_of(text, "def softmax(x):"))
    indent = lines[first].removesuffix("def softmax(x):")
    assert lines[first + 1] == indent + "    return x.exp() / x.exp().sum()  # no_max * trick"
    assert lines[first - 1].strip() in {"", "Python:", "```Python"}
    # A line break in code is kept, between Chinese characters too.
    second = lines.index(line_of(text, "第一行"))
    assert lines[second + 1] == lines[second].replace("第一行", "第二行")


def test_headings_lists_and_tables_read_as_such(text):
    assert "## 调度" in text.split("\n") and "### 小结" in text.split("\n")
    assert "1. 第一步\n2. 第二步" in text
    assert "- 线程\n- 块" in text
    header, row = line_of(text, "显存"), line_of(text, "H100")
    assert "GPU | 显存" in header and "H100 | 80 GB" in row
    assert text.index(header) < text.index(row)


def test_a_line_break_between_chinese_characters_is_no_space(text):
    assert "完成，每个周期挑选一个 ready 的 warp，不必等待。" in text.replace("**", "")
    assert "Each cycle one warp is picked." in text


def test_a_glossary_term_reads_as_its_text_without_an_address(settings):
    settings.SITE_URL = SITE
    Term.objects.create(english="warp", chinese="线程束", definition_zh="32 个线程。")
    note = make_note(slug="diaodu", body="每个 SM 调度线程束。", language=Language.CHINESE)
    assert body_of(NoteEmail(note).text).strip() == "每个 SM 调度线程束。"


def test_a_task_s_box_says_whether_it_is_done(settings):
    settings.SITE_URL = SITE
    note = make_note(slug="diaodu", body="- [x] 读论文\n- [ ] 写代码\n")
    assert "- [x] 读论文\n- [ ] 写代码" in body_of(NoteEmail(note).text)


def test_a_table_of_contents_lists_one_heading_a_line(settings):
    settings.SITE_URL = SITE
    note = make_note(slug="diaodu", body="[TOC]\n\n## 一\n\n正文。\n\n## 二\n\n正文。\n")
    text = body_of(NoteEmail(note).text)
    assert f"- 一 <{SITE}/notes/diaodu/#一>\n- 二 <{SITE}/notes/diaodu/#二>" in text
