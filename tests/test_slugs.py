"""The short slug the editor proposes for a new note: Latin words and pinyin, ≤ 6 words / 50.

Mixed Chinese/English titles: tests/test_slug_mixed_titles.py.
"""

import pytest

from blog.text.slugs import PROPOSED_SLUG_LENGTH, proposed_slug

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("在 H100 上超越 cuBLAS", "zai-h100-shang-chao-yue-cublas"),
        ("Warp 调度笔记", "warp-diao-du-bi-ji"),
        ("GPU 笔记：CUDA 12 的新特性", "gpu-bi-ji-cuda-12-xin-te-xing"),
        ("FlashAttention tiling", "flashattention-tiling"),
        ("调度器的设计与实现", "diao-du-qi-she-ji-yu-shi-xian"),
        ("2024 年终总结", "2024-nian-zhong-zong-jie"),
        ("", ""),
    ],
)
def test_proposals(title, slug):
    assert proposed_slug(title) == slug


def test_a_long_title_is_cut_between_syllables():
    slug = proposed_slug("并行计算中的阿姆达尔定律与古斯塔夫森定律的比较研究以及更多")
    assert len(slug) <= PROPOSED_SLUG_LENGTH
    assert slug == "bing-xing-ji-suan-zhong-a-mu-da-er-ding-lv-yu"


def test_a_long_english_title_is_cut_between_words():
    slug = proposed_slug("Understanding warp scheduling on Hopper GPUs in great depth")
    assert len(slug) <= PROPOSED_SLUG_LENGTH and not slug.endswith("-")
    assert slug == "understanding-warp-scheduling-on-hopper-gpus"
