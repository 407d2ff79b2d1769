"""Jekyll's and Hexo's own rules for tags and categories, on sites in their documented layout.

Jekyll (jekyllrb.com, Posts and Front Matter): ``tags`` and ``categories`` are a YAML list or
a space-separated string; ``tag``/``category`` name one; the folders above ``_posts`` are
categories too. Hexo (hexo.io, Front-matter): a string is one tag or category; a category list
is a hierarchy (``[GPU, CUDA]``: CUDA under GPU) and a list of lists several of them.
"""

import pytest

from blog.models import Note
from blog.porting.run import import_markdown
from tests.imports import site_folder

pytestmark = pytest.mark.django_db


def tag_names(note):
    return sorted(t.name or t.name_zh for t in note.tags.all())


def jekyll(tmp_path, files):
    return site_folder(tmp_path / "jekyll", {"_config.yml": "title: Lin\n", **files})


def hexo(tmp_path, files):
    return site_folder(
        tmp_path / "hexo", {"_config.yml": "title: Lin\n", "source/about/index.md": "", **files}
    )


def test_jekyll_space_separated_tags_are_several_tags(tmp_path):
    site = jekyll(
        tmp_path,
        {"_posts/2025-03-01-warps.md": "---\ntitle: Warps\ntags: cuda scheduling\n---\nText.\n"},
    )
    import_markdown([site])
    assert tag_names(Note.objects.get(slug="warps")) == ["cuda", "scheduling"]


def test_jekyll_a_yaml_list_keeps_names_with_spaces(tmp_path):
    site = jekyll(
        tmp_path,
        {
            "_posts/2025-03-01-warps.md": (
                "---\ntitle: Warps\ntags: [tensor core, cuda]\n---\nText.\n"
            )
        },
    )
    import_markdown([site])
    assert tag_names(Note.objects.get(slug="warps")) == ["cuda", "tensor core"]


def test_jekyll_space_separated_categories_first_is_the_series(tmp_path):
    site = jekyll(
        tmp_path,
        {"_posts/2025-03-01-warps.md": "---\ntitle: Warps\ncategories: gpu cuda\n---\nText.\n"},
    )
    import_markdown([site])
    note = Note.objects.get(slug="warps")
    assert note.series.title_en == "gpu" and tag_names(note) == ["cuda"]


def test_jekyll_singular_category_and_tag_name_one_each(tmp_path):
    site = jekyll(
        tmp_path,
        {
            "_posts/2025-03-01-warps.md": (
                "---\ntitle: Warps\ncategory: GPU notes\ntag: warp scheduling\n---\nText.\n"
            )
        },
    )
    import_markdown([site])
    note = Note.objects.get(slug="warps")
    assert note.series.title_en == "GPU notes" and tag_names(note) == ["warp scheduling"]


def test_jekyll_folder_categories_count(tmp_path):
    site = jekyll(
        tmp_path,
        {
            "gpu/_posts/2025-03-01-warps.md": "---\ntitle: Warps\n---\nText.\n",
            "gpu/cuda/_posts/2025-03-02-streams.md": "---\ntitle: Streams\n---\nText.\n",
            "essays/_posts/2025-03-03-tea.md": (
                "---\ntitle: Tea\ncategories: [Personal essays]\n---\nText.\n"
            ),
        },
    )
    import_markdown([site])
    warps, streams, tea = (Note.objects.get(slug=s) for s in ("warps", "streams", "tea"))
    assert warps.series.title_en == "gpu" and warps.series_position == 1
    assert streams.series == warps.series and streams.series_position == 2
    assert tag_names(streams) == ["cuda"]
    # The front matter's categories come first, the folders' after (Jekyll merges them so).
    assert tea.series.title_en == "Personal essays" and tag_names(tea) == ["essays"]


def test_jekyll_drafts_folder_is_not_a_category(tmp_path):
    site = jekyll(tmp_path, {"_drafts/warps.md": "---\ntitle: Warps\n---\nText.\n"})
    import_markdown([site])
    note = Note.objects.get(slug="warps")
    assert note.series is None and note.status == "draft"


def test_hexo_a_string_is_one_tag_and_one_category(tmp_path):
    site = hexo(
        tmp_path,
        {
            "source/_posts/warps.md": (
                "---\ntitle: Warps\ndate: 2025-03-01\ntags: warp scheduling\n"
                "categories: GPU notes\n---\nText.\n"
            )
        },
    )
    import_markdown([site])
    note = Note.objects.get(slug="warps")
    assert tag_names(note) == ["warp scheduling"] and note.series.title_en == "GPU notes"


def test_hexo_nested_categories_first_level_is_the_series(tmp_path):
    site = hexo(
        tmp_path,
        {
            "source/_posts/warps.md": (
                "---\ntitle: Warps\ndate: 2025-03-01\n"
                "categories:\n- [GPU notes, CUDA, Scheduling]\n- [Parallel computing]\n"
                "tags: [warp]\n---\nText.\n"
            )
        },
    )
    import_markdown([site])
    note = Note.objects.get(slug="warps")
    assert note.series.title_en == "GPU notes"
    assert tag_names(note) == ["CUDA", "Parallel computing", "Scheduling", "warp"]


def test_a_site_of_unknown_origin_still_splits_text_at_commas(tmp_path):
    site = site_folder(
        tmp_path / "loose", {"warps.md": "---\ntitle: Warps\ntags: cuda, warp scheduling\n---\n"}
    )
    import_markdown([site])
    assert tag_names(Note.objects.get(slug="warps")) == ["cuda", "warp scheduling"]


def test_the_format_given_wins_over_the_layout(tmp_path):
    site = site_folder(
        tmp_path / "told", {"posts/warps.md": "---\ntitle: Warps\ntags: cuda scheduling\n---\n"}
    )
    import_markdown([site], fmt="jekyll")
    assert tag_names(Note.objects.get(slug="warps")) == ["cuda", "scheduling"]


def test_the_report_says_how_the_generators_rules_read_the_file(tmp_path):
    from django.utils import translation

    from blog.porting.report_keys import explain_front_matter

    site = jekyll(
        tmp_path,
        {"gpu/_posts/2025-03-01-warps.md": "---\ntitle: Warps\ntags: cuda scheduling\n---\n"},
    )
    report = import_markdown([site])
    explain_front_matter(report, site)
    with translation.override("en"):
        lines = [str(r) for r in report.readings["gpu/_posts/2025-03-01-warps.md"]]
    assert "tags: 2 tags (space-separated text): cuda, scheduling (from “tags”)" in lines
    assert "series: “gpu” (from the folders above _posts)" in lines
