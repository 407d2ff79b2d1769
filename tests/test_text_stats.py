"""Excerpts, word counts and reading time for Chinese, English and mixed text."""

import pytest

from blog.rendering import render_markdown
from blog.text.stats import count_han_and_latin, make_excerpt, reading_minutes

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

ZH_SENTENCE = "并行计算是指同时使用多种计算资源解决计算问题的过程，是提高计算速度的一种有效手段。"
# Repeated, one long sentence: an excerpt of whole sentences has to cut it.
ZH_CLAUSE = ZH_SENTENCE.replace("。", "，")


def test_chinese_excerpt_is_about_120_characters_with_an_ellipsis():
    excerpt = make_excerpt(ZH_CLAUSE * 10)
    assert excerpt.endswith("…")
    assert 110 <= len(excerpt) - 1 <= 120
    assert (ZH_CLAUSE * 10).startswith(excerpt[:-1])


def test_english_excerpt_is_50_words_and_never_cuts_a_word():
    words = [f"kernel{i}" for i in range(100)]
    excerpt = make_excerpt(" ".join(words))
    assert excerpt.endswith("…")
    assert excerpt[:-1].split() == words[:50]


def test_english_prose_with_punctuation_cuts_between_words():
    text = "The warp scheduler, don't forget, issues one instruction per cycle. " * 12
    excerpt = make_excerpt(text)
    kept, original = excerpt[:-1].split(), text.split()
    assert 40 <= len(kept) <= 50
    assert kept[:-1] == original[: len(kept) - 1]
    # the last word is whole; only a trailing comma/full stop before the "…" is dropped
    assert kept[-1] == original[len(kept) - 1].rstrip(",.")


def test_mixed_text_counts_both_scripts():
    text = "在 H100 上超越 cuBLAS 的 GEMM kernel 实现，" * 20
    excerpt = make_excerpt(text)
    assert excerpt.endswith("…")
    # 4 words (1/50 each) + 8 CJK characters and punctuation (1/120 each) per repetition
    assert excerpt.count("cuBLAS") == 7
    for word in excerpt[:-1].split():
        assert word in text.split()


def test_short_text_has_no_ellipsis_and_whitespace_is_tidied():
    assert make_excerpt("  一段很短的\n 摘要 text  ") == "一段很短的 摘要 text"
    assert make_excerpt("") == ""
    assert make_excerpt("字" * 120) == "字" * 120
    assert make_excerpt("字" * 121) == "字" * 120 + "…"


@pytest.mark.parametrize(
    "cluster",
    ["😀", "👨\u200d👩\u200d👧\u200d👦", "👍🏽", "🇨🇳", "\u2764\ufe0f", "字\u0301"],
    ids=["emoji", "zwj-family", "skin-tone", "flag", "variation-selector", "combining"],
)
def test_emoji_and_combining_sequences_are_never_split(cluster):
    excerpt = make_excerpt(cluster * 300)
    assert excerpt.endswith("…")
    body = excerpt[:-1]
    assert body == cluster * (len(body) // len(cluster))
    assert 0 < len(body) // len(cluster) <= 120


def test_decomposed_accents_stay_on_their_letters():
    text = "cafe\u0301 " * 100
    excerpt = make_excerpt(text)
    assert excerpt == ("cafe\u0301 " * 50).rstrip() + "…"


def test_limits_are_adjustable():
    assert make_excerpt("字" * 50, han_limit=10) == "字" * 10 + "…"
    assert make_excerpt("a b c d e f", word_limit=3) == "a b c…"


def test_rendered_excerpt_strips_markup_and_code():
    rendered = render_markdown(
        "## 小节\n\n这是 **第一段**，带[链接](/x/)和 `inline()`。\n\n"
        "```python\nsecret_code = 1\n```\n\n<div>raw <em>html</em></div>\n"
    )
    assert rendered.excerpt == "这是 第一段，带链接和 inline()。 raw html"
    assert "secret_code" in rendered.plain_text


def test_long_rendered_note_gets_an_ellipsis_and_keeps_prose_order():
    rendered = render_markdown(f"{ZH_CLAUSE * 3}完。\n\n```c\nint x;\n```\n\n{ZH_SENTENCE * 3}")
    assert rendered.excerpt.endswith("…")
    assert "int x" not in rendered.excerpt


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("在 H100 上超越 cuBLAS", 6),  # 在 上 超 越 + H100 cuBLAS
        ("Don't stop: e.g. 3.14 is snake_case.", 6),  # Don't stop e.g 3.14 is snake_case
        ("GPU-accelerated", 2),  # a hyphen separates words
        ("日本語のテキスト 한국어", 11),  # kana and hangul count like Han
        ("，。！？…—— 😀", 0),  # punctuation and emoji are not words
        ("", 0),
    ],
)
def test_word_count_rule(text, expected):
    assert sum(count_han_and_latin(text)) == expected


def test_reading_minutes_minimum_one_and_grows():
    assert reading_minutes(0, 0) == 1
    assert reading_minutes(10, 10) == 1
    assert reading_minutes(300, 0) == 1
    assert reading_minutes(301, 0) == 2
    assert reading_minutes(0, 1000) == 5
    assert reading_minutes(3000, 2000) == 20
    assert reading_minutes(600, 0) < reading_minutes(601, 0) < reading_minutes(3000, 0)


def test_rendered_word_count_and_minutes_for_a_long_note():
    short = render_markdown("在 H100 上超越 cuBLAS")
    assert (short.word_count, short.reading_minutes) == (6, 1)
    long = render_markdown(("并行" * 300 + "\n\n" + "warp " * 100 + "\n\n") * 3)
    assert long.word_count == 1800 + 300
    assert long.reading_minutes == 8  # 1800/300 + 300/200 = 7.5
