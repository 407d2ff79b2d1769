"""Hugo multilingual sites (gohugo.io, Multilingual mode): translations by file name and by
content folder per language, ``translationKey``, ``defaultContentLanguage``; each language's
file naming the series and tags in its own language makes one bilingual series and tags."""

import pytest

from blog.models import Note, Series, Tag
from blog.porting.export import export
from blog.porting.run import import_markdown
from tests.imports import site_folder

pytestmark = pytest.mark.django_db

ZH = (
    "---\ntitle: Warp 调度\ndate: 2025-06-01T10:00:00+08:00\n"
    'categories: ["GPU 笔记"]\ntags: [调度, CUDA]\n---\n写 kernel 时我们以线程思考。\n'
)
EN = (
    "---\ntitle: Warp scheduling\ndate: 2025-06-02T10:00:00+08:00\n"
    'categories: ["GPU notes"]\ntags: [Scheduling, CUDA]\n---\nWe think in threads.\n'
)
CONFIG = """baseURL = "https://example.org/"
defaultContentLanguage = "zh"
[languages.zh]
languageName = "中文"
weight = 1
[languages.en]
languageName = "English"
weight = 2
"""


def pair():
    zh = Note.objects.get(language="zh-hans")
    en = Note.objects.get(language="en")
    return zh, en


def assert_one_bilingual_series_and_tags(zh, en):
    assert zh.counterpart == en
    assert zh.series == en.series and zh.series_position == en.series_position == 1
    series = Series.objects.get()
    assert (series.title_zh, series.title_en) == ("GPU 笔记", "GPU notes")
    assert series.slug == "gpu-notes"
    scheduling = Tag.objects.get(name="Scheduling")
    assert scheduling.name_zh == "调度"
    assert set(zh.tags.all()) == set(en.tags.all()) == {scheduling, Tag.objects.get(name="CUDA")}
    assert Tag.objects.count() == 2


def test_translations_by_file_name(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": CONFIG, "content/posts/warp.md": ZH, "content/posts/warp.en.md": EN},
    )
    import_markdown([site])
    zh, en = pair()
    assert_one_bilingual_series_and_tags(zh, en)
    assert zh.slug == "warp" and en.slug == "warp-en"


def test_translations_by_content_folder_per_language(tmp_path):
    config = CONFIG.replace("weight = 1", 'weight = 1\ncontentDir = "content/zh"').replace(
        "weight = 2", 'weight = 2\ncontentDir = "content/en"'
    )
    site = site_folder(
        tmp_path / "site",
        {
            "hugo.toml": config,
            "content/zh/posts/warp.md": ZH,
            "content/en/posts/warp.md": EN,
        },
    )
    import_markdown([site])
    zh, en = pair()
    assert_one_bilingual_series_and_tags(zh, en)


def test_translation_key_pairs_files_of_different_names(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {
            "config.yaml": "defaultContentLanguage: en\nlanguages:\n  en: {}\n  zh: {}\n",
            "content/posts/warp-diaodu.zh.md": ZH.replace(
                "---\ntitle", "---\ntranslationKey: w\ntitle"
            ),
            "content/posts/warp-scheduling.md": EN.replace(
                "---\ntitle", "---\ntranslationKey: w\ntitle"
            ),
        },
    )
    import_markdown([site])
    zh, en = pair()
    assert zh.slug == "warp-diaodu" and en.slug == "warp-scheduling"
    assert_one_bilingual_series_and_tags(zh, en)


def test_default_content_language_decides_files_without_a_suffix(tmp_path):
    english_title_chinese_default = "---\ntitle: Occupancy\n---\nShort English text.\n"
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": CONFIG, "content/posts/occupancy.md": english_title_chinese_default},
    )
    import_markdown([site])
    # Guessing from the text would say English; the site says its default language is Chinese.
    assert Note.objects.get(slug="occupancy").language == "zh-hans"


def test_default_language_in_config_default_folder_and_case_insensitive_keys(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {
            "config/_default/hugo.yaml": "DefaultContentLanguage: en\n",
            "config/_default/languages.yaml": "en: {weight: 1}\nzh-cn: {weight: 2}\n",
            "content/posts/warp.md": "---\ntitle: 调度\n---\n正文。\n",
            "content/posts/warp.zh-cn.md": "---\ntitle: 调度 2\n---\n正文。\n",
        },
    )
    import_markdown([site])
    assert Note.objects.get(slug="warp").language == "en"
    assert Note.objects.get(title="调度 2").language == "zh-hans"


def test_without_a_default_language_biji_guesses_from_the_text(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": 'title = "x"\n', "content/posts/a.md": "---\ntitle: 线程束\n---\n正文。\n"},
    )
    import_markdown([site])
    assert Note.objects.get().language == "zh-hans"


def test_english_file_first_still_gives_one_series(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {
            "hugo.toml": CONFIG,
            "content/posts/warp.md": ZH.replace("2025-06-01", "2025-06-03"),
            "content/posts/warp.en.md": EN,
        },
    )
    import_markdown([site])
    zh, en = pair()
    assert_one_bilingual_series_and_tags(zh, en)


def test_an_existing_series_keeps_the_titles_its_author_gave(tmp_path):
    Series.objects.create(title_zh="GPU 笔记", title_en="Notes on GPUs", slug="gpu")
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": CONFIG, "content/posts/warp.md": ZH, "content/posts/warp.en.md": EN},
    )
    report = import_markdown([site])
    zh, en = pair()
    series = Series.objects.get()
    assert zh.series == en.series == series and series.title_en == "Notes on GPUs"
    assert report.counts == {"created": 2}


def test_a_pair_naming_two_existing_series_stands_in_its_originals(tmp_path):
    gpu = Series.objects.create(title_zh="GPU 笔记", title_en="Notes on GPUs", slug="gpu")
    Series.objects.create(title_zh="另一个", title_en="GPU notes", slug="other")
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": CONFIG, "content/posts/warp.md": ZH, "content/posts/warp.en.md": EN},
    )
    report = import_markdown([site])
    zh, en = pair()
    assert zh.series == en.series == gpu
    assert "its translation is in 'GPU 笔记 / Notes on GPUs'" in "\n".join(report.lines())


def test_reimport_changes_nothing(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": CONFIG, "content/posts/warp.md": ZH, "content/posts/warp.en.md": EN},
    )
    import_markdown([site])
    report = import_markdown([site])
    assert report.counts == {"unchanged": 2}
    assert Series.objects.count() == 1 and Tag.objects.count() == 2


def test_the_export_of_the_pair_names_the_series_in_both_languages(tmp_path):
    site = site_folder(
        tmp_path / "site",
        {"hugo.toml": CONFIG, "content/posts/warp.md": ZH, "content/posts/warp.en.md": EN},
    )
    import_markdown([site])
    export(tmp_path / "out")
    zh = (tmp_path / "out/content/posts/warp.md").read_text("utf-8")
    en = (tmp_path / "out/content/posts/warp.en.md").read_text("utf-8")
    assert "categories:\n- GPU 笔记\n" in zh or "categories: [GPU 笔记]" in zh
    assert "series_en: GPU notes" in zh and "series_zh: GPU 笔记" in en


def test_the_report_says_the_language_came_from_the_site(tmp_path):
    from django.utils import translation

    from blog.porting.report_keys import explain_front_matter

    site = site_folder(
        tmp_path / "site", {"hugo.toml": CONFIG, "content/posts/a.md": "---\ntitle: A\n---\n"}
    )
    report = import_markdown([site])
    explain_front_matter(report, site)
    with translation.override("en"):
        lines = [str(r) for r in report.readings["content/posts/a.md"]]
    assert "language: Chinese (from the Hugo site's languages)" in lines
