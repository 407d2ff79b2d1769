"""The slug proposed for a new note with a mixed Chinese/English title says what the note is
about: Latin words as they are, Chinese in toneless pinyin, in the title's order, short, and
never a bare English term with a counter because the Chinese words were thrown away."""

import pytest
from django.urls import reverse

from blog.models import Note
from blog.text.slugs import PROPOSED_SLUG_LENGTH, PROPOSED_SLUG_WORDS, proposed_slug
from tests.factories import make_note, note_form_data

MIXED_TITLES = {
    "在 H100 上用异步拷贝隐藏访存延迟": "zai-h100-shang-yong-yi-bu-kao-bei-yin-cang-fang",
    "warp 发散的代价": "warp-fa-san-dai-jia",
    "Warp 调度笔记": "warp-diao-du-bi-ji",
    "在 H100 上超越 cuBLAS": "zai-h100-shang-chao-yue-cublas",
    "GPU 笔记：CUDA 12 的新特性": "gpu-bi-ji-cuda-12-xin-te-xing",
    "共享内存的 bank 冲突": "gong-xiang-nei-cun-bank-chong-tu",
    "Ｈ１００ 上的 FlashAttention-3": "h100-shang-flashattention-3",
}


@pytest.mark.parametrize(("title", "slug"), MIXED_TITLES.items())
def test_chinese_words_are_transliterated_beside_the_latin_ones(title, slug):
    assert proposed_slug(title) == slug


def test_the_particle_de_is_left_out_but_not_the_same_character_in_a_word():
    assert proposed_slug("调度器的设计") == "diao-du-qi-she-ji"
    assert proposed_slug("设计的目的") == "she-ji-mu-di"  # 目的 mùdì: a word, kept


def test_language_names_keep_their_signs_in_words():
    assert proposed_slug("C++ 与 C# 的对比") == "cpp-yu-csharp-dui-bi"


def test_pinyin_has_no_tone_marks_and_no_umlaut():
    assert proposed_slug("定律与绿色") == "ding-lv-yu-lv-se"


@pytest.mark.parametrize(
    "title",
    [
        "Understanding warp scheduling on Hopper GPUs in great depth and detail",
        "并行计算中的阿姆达尔定律与古斯塔夫森定律的比较研究以及更多",
        "在 H100 上用 TMA 与 wgmma 实现 FlashAttention-3 的 warp specialization",
        "Supercalifragilisticexpialidocious" * 3,
    ],
)
def test_a_long_title_gives_a_short_slug_cut_between_words(title):
    slug = proposed_slug(title)
    assert 0 < len(slug) <= PROPOSED_SLUG_LENGTH
    assert not slug.startswith("-") and not slug.endswith("-")


def test_six_english_words_or_twelve_chinese_syllables():
    english = proposed_slug("Understanding warp scheduling on Hopper GPUs in great depth")
    assert english == "understanding-warp-scheduling-on-hopper-gpus"
    chinese = proposed_slug("并行计算中的阿姆达尔定律与古斯塔夫森定律的比较研究以及更多")
    assert chinese == "bing-xing-ji-suan-zhong-a-mu-da-er-ding-lv-yu"
    assert len(chinese.split("-")) == 2 * PROPOSED_SLUG_WORDS


@pytest.mark.django_db
def test_the_editor_proposes_the_whole_title_not_a_counted_term(staff_client):
    """ "warp 发散的代价" once became ``warp-2`` because a note "Warp 调度笔记" had ``warp``."""
    make_note(title="Warp 调度笔记", slug="warp")
    response = staff_client.get(reverse("admin:blog_note_slug"), {"title": "warp 发散的代价"})
    assert response.json() == {"slug": "warp-fa-san-dai-jia"}


@pytest.mark.django_db
def test_a_new_note_saved_with_an_empty_slug_gets_the_proposal(staff_client):
    make_note(title="Warp", slug="warp")
    title = "在 H100 上用异步拷贝隐藏访存延迟"
    response = staff_client.post(reverse("admin:blog_note_add"), note_form_data(title=title))
    assert response.status_code == 302
    assert Note.objects.get(title=title).slug == MIXED_TITLES[title]


@pytest.mark.django_db
def test_an_existing_note_keeps_its_slug(staff_client):
    note = make_note(title="Warp 调度笔记", slug="warp")
    response = staff_client.post(
        reverse("admin:blog_note_change", args=[note.pk]),
        note_form_data(note, title="warp 发散的代价", slug=""),
    )
    assert response.status_code == 302
    note.refresh_from_db()
    assert note.slug == "warp"


@pytest.mark.django_db
def test_a_note_saved_without_a_slug_outside_the_admin_gets_the_same_proposal():
    """The demo loader, a shell or an import without a slug: the editor's short proposal, not
    every syllable of the title."""
    note = Note.objects.create(title="在 H100 上用异步拷贝隐藏访存延迟，以及 warp 发散的代价")
    assert note.slug == proposed_slug(note.title)
    assert len(note.slug) <= 50
