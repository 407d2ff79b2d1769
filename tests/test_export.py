"""export_markdown: Hugo's shape by default, Hexo and Jekyll on request, deterministic."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from blog.models import LegacyPath, Note, Series, Tag
from blog.ops.demo.loader import load_demo
from blog.porting import frontmatter
from blog.porting.export import export
from blog.porting.formats import HEXO, JEKYLL
from tests.shared_data import module_data

pytestmark = pytest.mark.django_db


@module_data
def demo_loaded():
    """The demo blog, loaded once for the module (tests/shared_data.py): each test's changes
    are undone when it ends."""
    load_demo()


@pytest.fixture
def demo(demo_loaded):
    pass


def read(path):
    return frontmatter.split(path.read_text("utf-8"))


def test_hugo_front_matter_tags_in_both_languages_and_a_shared_translation_key(demo, tmp_path):
    LegacyPath.objects.create(
        path="/2025/06/warp/", note=Note.objects.get(slug="cuda-warp-scheduling")
    )
    export(tmp_path)
    zh = read(tmp_path / "content/posts/cuda-warp-scheduling.md")
    en = read(tmp_path / "content/posts/cuda-warp-scheduling-en.md")
    assert list(zh.meta)[:7] == [
        "title",
        "slug",
        "lang",
        "date",
        "lastmod",
        "draft",
        "translationKey",
    ]
    assert zh.meta["translationKey"] == en.meta["translationKey"] == "cuda-warp-scheduling"
    assert zh.meta["tags"] == ["CUDA", "GPU", "Scheduling"]  # Hugo reads plain names
    assert zh.meta["tags_zh"] == {"CUDA": "CUDA", "GPU": "GPU", "Scheduling": "调度"}
    # The series in each note's language, its other title beside it.
    assert zh.meta["categories"] == ["GPU 笔记"] and zh.meta["series_en"] == "GPU notes"
    assert en.meta["categories"] == ["GPU notes"] and en.meta["series_zh"] == "GPU 笔记"
    assert "series_zh" not in zh.meta and "series_en" not in en.meta
    assert zh.meta["series_position"] == 1
    assert zh.meta["aliases"] == ["/2025/06/warp/"]  # Hugo's own redirects
    assert zh.meta["date"].isoformat() == "2025-05-18T21:40:00+08:00"
    text = (tmp_path / "content/posts/cuda-warp-scheduling.md").read_text("utf-8")
    assert "date: 2025-05-18T21:40:00+08:00\n" in text and "\r" not in text
    assert zh.body == Note.objects.get(slug="cuda-warp-scheduling").body.replace("\r\n", "\n")
    data = frontmatter.split("---\n" + (tmp_path / "data/biji.yaml").read_text("utf-8") + "---\n")
    assert {"slug": "scheduling", "name": "Scheduling", "name_zh": "调度"} in data.meta["tags"]
    assert data.meta["site"]["author"] == "林舟 Lin Zhou"
    assert read(tmp_path / "content/pages/about.md").meta["type"] == "page"


def test_drafts_scheduled_notes_and_sources(demo, tmp_path):
    export(tmp_path)
    posts = tmp_path / "content/posts"
    drafts = [p for p in posts.iterdir() if read(p).meta["draft"]]
    assert drafts and all(
        Note.objects.get(slug=read(p).meta["slug"]).status == "draft" for p in drafts
    )
    translated = read(posts / "decode-gemv-worklog.md").meta
    assert translated["source_author"] == "Ines Okafor"
    assert translated["source_date"].isoformat() == "2025-12-20"


def test_hexo_and_jekyll_layouts(demo, tmp_path):
    export(tmp_path / "hexo", HEXO)
    export(tmp_path / "jekyll", JEKYLL)
    hexo = read(tmp_path / "hexo/source/_posts/cuda-warp-scheduling.md").meta
    assert hexo["published"] is True and "draft" not in hexo and "updated" in hexo
    assert read(tmp_path / "hexo/source/pages/about.md").meta["layout"] == "page"
    assert (tmp_path / "jekyll/_posts/2025-05-18-cuda-warp-scheduling.md").is_file()
    assert (tmp_path / "jekyll/_data/biji.yaml").is_file()


def test_exporting_twice_gives_the_same_bytes(demo, tmp_path):
    export(tmp_path / "a")
    export(tmp_path / "b")
    for path in sorted((tmp_path / "a").rglob("*.md")):
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()


def test_command_refuses_a_folder_that_is_not_empty(demo, tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(CommandError, match="not empty"):
        call_command("export_markdown", str(tmp_path), stdout=StringIO())
    out = StringIO()
    call_command("export_markdown", str(tmp_path / "new"), "--format", "jekyll", stdout=out)
    assert "Exported 13 notes, 2 pages, 22 glossary terms and 0 media files" in out.getvalue()


def test_tags_without_a_chinese_name_are_not_written_as_empty_names(demo, tmp_path):
    note = Note.objects.get(slug="cuda-warp-scheduling-en")
    note.tags.add(*Tag.objects.resolve(["Occupancy-only-english"]))
    export(tmp_path)
    meta = read(tmp_path / "content/posts/cuda-warp-scheduling-en.md").meta
    assert "Occupancy-only-english" in meta["tags"]
    assert "Occupancy-only-english" not in meta["tags_zh"]
    assert "" not in meta["tags_zh"].values()
    text = (tmp_path / "content/posts/cuda-warp-scheduling-en.md").read_text("utf-8")
    assert "''" not in text and '""' not in text


def test_a_series_with_one_title_is_written_once(demo, tmp_path):
    series = Note.objects.get(slug="cuda-warp-scheduling").series
    Series.objects.filter(pk=series.pk).update(title_en="GPU 笔记")
    export(tmp_path)
    meta = read(tmp_path / "content/posts/cuda-warp-scheduling.md").meta
    assert meta["categories"] == ["GPU 笔记"] and "series_en" not in meta


def test_force_removes_the_files_of_notes_that_no_longer_exist(demo, tmp_path):
    target = tmp_path / "site"
    call_command("export_markdown", str(target), stdout=StringIO())
    gone = target / "content/posts/cuda-warp-scheduling-en.md"
    assert gone.is_file()
    mine = target / "content/posts/written-by-hand.md"
    mine.write_text("---\ntitle: mine\n---\n", "utf-8")
    Note.objects.get(slug="cuda-warp-scheduling-en").delete()
    out = StringIO()
    call_command("export_markdown", str(target), "--force", stdout=out)
    assert not gone.exists()
    assert "content/posts/cuda-warp-scheduling-en.md" in out.getvalue()
    assert mine.read_text("utf-8") == "---\ntitle: mine\n---\n"  # not biji's: kept
    assert (target / "content/posts/cuda-warp-scheduling.md").is_file()


def test_force_into_a_folder_no_export_wrote_lists_what_it_leaves(demo, tmp_path):
    (tmp_path / "content/posts").mkdir(parents=True)
    (tmp_path / "content/posts/old.md").write_text("---\ntitle: old\n---\n", "utf-8")
    out = StringIO()
    call_command("export_markdown", str(tmp_path), "--force", stdout=out)
    assert (tmp_path / "content/posts/old.md").is_file()
    assert "Left in place 1 Markdown files" in out.getvalue()
    assert "content/posts/old.md" in out.getvalue()


def test_an_unused_image_of_the_earlier_export_is_removed(demo, tmp_path, settings):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    name = default_storage.save("uploads/2026/12/gone.png", ContentFile(b"\x89PNG fake"))
    note = Note.objects.get(slug="cuda-warp-scheduling")
    note.body += f"\n\n![x](/media/{name})\n"
    note.save()
    export(tmp_path)
    copied = tmp_path / "static/media" / name
    assert copied.is_file()
    note.body = note.body.replace(f"\n\n![x](/media/{name})\n", "")
    note.save()
    counts = export(tmp_path)
    assert not copied.exists() and f"static/media/{name}" in counts["removed"]
