"""Notes, tags and series: slugs, derived fields, translations and positions."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from blog.caching import site_settings
from blog.models import Language, Note, SiteSettings, Tag
from blog.models.series import place_in_series
from blog.models.taxonomy import set_tags
from blog.models.translations import link_translation
from tests.factories import make_note, make_series, make_tag

pytestmark = pytest.mark.django_db


def test_slug_from_a_chinese_title_is_pinyin():
    note = make_note(title="在 H100 上超越 cuBLAS", slug="")
    assert note.slug == "zai-h100-shang-chao-yue-cublas"


def test_slug_from_an_english_title_and_uniqueness():
    first = make_note(title="Warp scheduling on Hopper", slug="", language=Language.ENGLISH)
    second = make_note(title="Warp scheduling on Hopper", slug="", language=Language.ENGLISH)
    assert first.slug == "warp-scheduling-on-hopper"
    assert second.slug == "warp-scheduling-on-hopper-2"


def test_the_author_s_slug_is_kept_and_stable_across_title_edits():
    note = make_note(title="调度", slug="scheduling")
    note.title = "调度（修订）"
    note.save()
    note.refresh_from_db()
    assert note.slug == "scheduling"


def test_derived_fields_are_stored_on_save():
    note = make_note(
        body="# 标题\n\n并行计算让程序更快。Amdahl's law 说明了上限。\n\n```python\nprint(1)\n```"
    )
    stored = Note.objects.values(*Note.derived_fields).get(pk=note.pk)
    html = stored["body_html"]
    assert '<h1 id="标题">标题<a class="headerlink" href="#标题">' in html
    assert "<p>并行计算让程序更快。Amdahl's law 说明了上限。</p>" in html
    assert '<div class="highlight"><span class="filename">Python</span><pre>' in html
    assert '<span class="nb">print</span><span class="p">(</span><span class="mi">1</span>' in html
    assert stored["toc_html"] == '<ul>\n<li><a href="#标题">标题</a></li>\n</ul>'
    # The excerpt is the first paragraph: not the heading, not the code.
    assert stored["excerpt"] == "并行计算让程序更快。Amdahl's law 说明了上限。"
    assert stored["plain_text"] == "标题 并行计算让程序更快。Amdahl's law 说明了上限。 print(1)"
    # Han characters count one word each: 标题 2 + 并行计算让程序更快 9 + 说明了上限 5; then
    # Amdahl's, law, print, 1.
    assert stored["word_count"] == 2 + 9 + 5 + 4
    assert stored["reading_minutes"] == 1


def test_a_summary_replaces_the_derived_excerpt():
    note = make_note(summary="这篇笔记讲 warp 调度。", body="很长的正文。" * 100)
    assert note.excerpt == "这篇笔记讲 warp 调度。"


def test_script_in_the_body_never_reaches_the_stored_html():
    note = make_note(body='hello <script>alert(1)</script> <img src=x onerror="alert(1)">')
    assert "<script" not in note.body_html
    assert "onerror" not in note.body_html
    assert "hello" in note.body_html


def test_translation_link_reads_from_both_sides():
    zh = make_note(title="异步调度", language=Language.CHINESE)
    en = make_note(title="Async scheduling", language=Language.ENGLISH, translation=zh)
    zh.refresh_from_db()
    assert en.counterpart == zh
    assert zh.counterpart == en


def test_relinking_a_translation_drops_the_old_pair():
    zh = make_note(language=Language.CHINESE)
    en_old = make_note(language=Language.ENGLISH, translation=zh)
    en_new = make_note(language=Language.ENGLISH)
    link_translation(en_new, zh)
    en_old.refresh_from_db()
    zh.refresh_from_db()
    assert en_old.translation is None
    assert zh.counterpart == en_new


def test_unlinking_leaves_both_notes_alone():
    zh = make_note(language=Language.CHINESE)
    en = make_note(language=Language.ENGLISH, translation=zh)
    link_translation(zh, None)  # the link is stored on the other note: found and dropped
    en.refresh_from_db()
    zh.refresh_from_db()
    assert en.counterpart is None and zh.counterpart is None


def test_saving_a_note_writes_its_own_row_only():
    series = make_series()
    zh = make_note(language=Language.CHINESE, series=series, series_position=1)
    en = make_note(language=Language.ENGLISH, translation=zh, series=series, series_position=1)
    third = make_note(language=Language.ENGLISH)
    zh.series_position, zh.translation = 2, third
    with CaptureQueriesContext(connection) as queries:
        zh.save()
    writes = [q["sql"] for q in queries if q["sql"].lstrip().startswith(("INSERT", "UPDATE"))]
    assert len(writes) == 1 and "blog_note" in writes[0]
    en.refresh_from_db()
    assert (en.translation_id, en.series_position) == (zh.pk, 1)  # the pair rules are not save's


def test_placing_a_note_in_a_series_moves_its_translation_along():
    series = make_series()
    zh = make_note(language=Language.CHINESE, series=series, series_position=1)
    en = make_note(language=Language.ENGLISH, translation=zh, series=series, series_position=1)
    place_in_series(zh, series, 4)
    en.refresh_from_db()
    assert (en.series_id, en.series_position) == (series.pk, 4)
    place_in_series(zh, None, 4)
    zh.refresh_from_db()
    assert (zh.series_id, zh.series_position) == (None, None)


def test_a_translation_must_be_in_the_other_language():
    zh = make_note(language=Language.CHINESE)
    other = Note(title="x", language=Language.CHINESE, translation=zh)
    with pytest.raises(ValidationError):
        other.full_clean()


def test_positions_are_unique_within_a_series():
    series = make_series()
    make_note(series=series, series_position=1)
    make_note(series=make_series(), series_position=1)  # another series: fine
    with pytest.raises(IntegrityError):
        make_note(series=series, series_position=1)


def test_a_position_without_series_is_dropped_on_save_and_refused_by_validation():
    note = make_note(series_position=3)
    assert note.series_position is None
    with pytest.raises(ValidationError):
        Note(title="x", series_position=2).clean()


def test_tags_resolve_by_either_name():
    tag = make_tag(name="Scheduling", name_zh="调度")
    note = make_note()
    set_tags(note, Tag.objects.resolve(["调度", "scheduling", "CUDA"]))
    assert sorted(t.name for t in note.tags.all()) == ["CUDA", "Scheduling"]
    assert Tag.objects.count() == 2
    assert tag.slug == "scheduling"


def test_a_new_chinese_tag_gets_an_ascii_slug():
    note = make_note()
    note.tags.add(*Tag.objects.resolve(["算子"]))
    tag = Tag.objects.get(name_zh="算子")
    assert tag.slug == "suan-zi"


def test_bilingual_names_follow_the_interface_language():
    from django.utils import translation

    tag = make_tag(name="Kernels", name_zh="算子")
    with translation.override("zh-hans"):
        assert (tag.display_name, tag.other_name) == ("算子", "Kernels")
    with translation.override("en"):
        assert (tag.display_name, tag.other_name) == ("Kernels", "算子")


def test_site_settings_are_one_cached_row(
    django_assert_num_queries, django_capture_on_commit_callbacks
):
    site = SiteSettings.objects.create(title="笔记", tagline_en="Notes")
    site.navigation.create(label_zh="系列", label_en="Series", url="/series/")
    site_settings()
    with django_assert_num_queries(1):  # the content version; settings and links are cached
        loaded = site_settings()
        links = loaded.navigation_links
    assert loaded.title == "笔记"
    assert [link.label_en for link in links] == ["Series"]
    with django_capture_on_commit_callbacks(execute=True):
        site.title = "新标题"
        site.save()
    assert site_settings().title == "新标题"
    assert SiteSettings.objects.count() == 1
