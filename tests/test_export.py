"""export_markdown: Hugo's shape by default, Hexo and Jekyll on request, deterministic."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from blog.models import LegacyPath, Note
from blog.ops.demo.loader import load_demo
from blog.porting import frontmatter
from blog.porting.export import export
from blog.porting.formats import HEXO, JEKYLL

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    load_demo()


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
    assert zh.meta["tags_zh"] == ["CUDA", "GPU", "调度"]
    assert zh.meta["categories"] == ["GPU notes"] and zh.meta["series_position"] == 1
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
