"""export_markdown: Hugo's shape by default, Hexo and Jekyll on request, deterministic; each
generator's configuration; what the import reads back of the generators' own keys. The sites
the generators build from it: tests/test_export_generators.py."""

import json
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from blog.models import Language, LegacyPath, Note, Series, Tag
from blog.models.translations import link_translation
from blog.ops.demo.loader import load_demo
from blog.porting import frontmatter
from blog.porting.export import export
from blog.porting.formats import FORMATS, HEXO, HUGO, JEKYLL
from blog.porting.run import import_markdown
from tests.factories import make_note
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


def files(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(Path(folder).rglob("*"))
        if path.is_file()
    }


def english_original_and_its_translation():
    """A pair whose English note came first: the import stores it before the Chinese one."""
    en = make_note(title="Warp scheduling", slug="warp-en", language=Language.ENGLISH,
                   body="Warps.\n", published_ago=timedelta(days=9))  # fmt: skip
    zh = make_note(
        title="Warp 调度", slug="warp", body="线程束。\n", published_ago=timedelta(days=2)
    )
    link_translation(zh, en)
    return zh, en


@pytest.mark.parametrize("fmt", ["jekyll", "hexo"])
def test_a_permalink_the_export_writes_is_no_old_address(fmt, tmp_path):
    """Jekyll's pair shares the Chinese note's permalink (jekyll-polyglot), Hexo's notes each
    state their own: read back, neither becomes a redirect, in whichever order the notes
    are stored, and the export after the import is the same."""
    english_original_and_its_translation()
    export(tmp_path / "first", FORMATS[fmt])
    Note.objects.all().delete()
    Tag.objects.all().delete()
    report = import_markdown([tmp_path / "first"])
    assert not report.problems, report.lines()
    assert not LegacyPath.objects.exists()
    assert Note.objects.get(slug="warp").counterpart == Note.objects.get(slug="warp-en")
    export(tmp_path / "second", FORMATS[fmt])
    assert files(tmp_path / "first") == files(tmp_path / "second")


def test_a_permalink_elsewhere_is_still_an_old_address(tmp_path):
    post = tmp_path / "_posts/2025-03-01-warp.md"
    post.parent.mkdir(parents=True)
    post.write_text("---\ntitle: Warp\npermalink: /2025/03/warp.html\n---\n\nText.\n", "utf-8")
    assert not import_markdown([tmp_path]).errors
    assert LegacyPath.objects.get().path == "/2025/03/warp.html"


def test_a_chinese_note_s_tags_are_read_back_with_both_names(tmp_path):
    post = tmp_path / "content/posts/warp.md"
    post.parent.mkdir(parents=True)
    front = "title: Warp 调度\ntags: [调度, 只有中文]\ntags_en: {调度: Scheduling}"
    post.write_text(f"---\n{front}\n---\n\n正文。\n", "utf-8")
    assert not import_markdown([tmp_path]).errors
    names = {(tag.name, tag.name_zh) for tag in Note.objects.get(slug="warp").tags.all()}
    assert names == {("Scheduling", "调度"), ("", "只有中文")}


def test_a_pair_keeps_the_key_it_was_imported_with(tmp_path):
    zh, en = english_original_and_its_translation()
    Note.objects.filter(pk__in=[zh.pk, en.pk]).update(translation_key="tma")
    export(tmp_path / "kept")
    assert read(tmp_path / "kept/content/posts/warp.md").meta["translationKey"] == "tma"
    assert read(tmp_path / "kept/content/posts/warp.en.md").meta["translationKey"] == "tma"
    # Linked again in the admin to a note without it: the pair is a new one.
    Note.objects.filter(pk=en.pk).update(translation_key="")
    export(tmp_path / "relinked")
    assert read(tmp_path / "relinked/content/posts/warp.en.md").meta["translationKey"] == "warp"


def test_a_hugo_translation_key_comes_back_from_the_import(tmp_path):
    site = tmp_path / "site/content/posts"
    site.mkdir(parents=True)
    front = "---\ntitle: {}\nslug: tma-intro\ntranslationKey: tma\ndate: 2025-03-0{}\n---\n\n{}\n"
    (site / "tma.md").write_text(front.format("TMA 入门", 1, "正文。"), "utf-8")
    (site / "tma.en.md").write_text(front.format("TMA intro", 2, "Text."), "utf-8")
    assert not import_markdown([tmp_path / "site"]).errors
    export(tmp_path / "out")
    assert read(tmp_path / "out/content/posts/tma-intro.md").meta["translationKey"] == "tma"


@pytest.mark.parametrize(
    "fmt, names, says",
    [
        (HUGO, ["hugo.toml"], ['defaultContentLanguage = "zh-hans"', "[languages.en]"]),
        (JEKYLL, ["_config.yml"], ['languages: ["zh-hans", "en"]', 'default_lang: "zh-hans"']),
        (HEXO, ["_config.yml", "package.json"], ['language: ["zh-hans", "en"]', '"hexo": "8.1.2"']),
    ],
)
def test_the_generator_s_configuration_declares_both_languages(fmt, names, says, tmp_path):
    export(tmp_path, fmt)
    text = "".join((tmp_path / name).read_text("utf-8") for name in names)
    assert all(line in text for line in says)


def test_a_site_s_own_configuration_is_left_as_it_is(tmp_path):
    (tmp_path / "hugo.toml").write_text('title = "mine"\n', "utf-8")
    out = StringIO()
    call_command("export_markdown", str(tmp_path), "--force", stdout=out)
    assert (tmp_path / "hugo.toml").read_text("utf-8") == 'title = "mine"\n'
    assert "Left the site's own configuration as it is" in out.getvalue()
    call_command("export_markdown", str(tmp_path / "new"), stdout=StringIO())
    (tmp_path / "new/hugo.toml").write_text('title = "edited"\n', "utf-8")
    call_command("export_markdown", str(tmp_path / "new"), "--force", stdout=StringIO())
    assert "defaultContentLanguage" in (tmp_path / "new/hugo.toml").read_text("utf-8")


def test_the_exported_hexo_site_asks_npm_for_the_versions_the_tests_build_with():
    from blog.porting.site_config import HEXO_PACKAGES

    pinned = json.loads((Path(__file__).parent.parent / "package.json").read_text("utf-8"))
    assert {name: pinned["devDependencies"][name] for name in HEXO_PACKAGES} == HEXO_PACKAGES


def test_hugo_front_matter_tags_in_each_language_and_a_shared_translation_key(demo, tmp_path):
    LegacyPath.objects.create(
        path="/2025/06/warp/", note=Note.objects.get(slug="cuda-warp-scheduling")
    )
    export(tmp_path)
    zh = read(tmp_path / "content/posts/cuda-warp-scheduling.md")
    # Hugo's language suffix; a translation named like its original (Hugo pairs by path too).
    en = read(tmp_path / "content/posts/cuda-warp-scheduling.en.md")
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
    assert en.meta["slug"] == "cuda-warp-scheduling-en"  # biji's slug, as it is
    # Tags in the note's language, as Hugo shows them; the other names beside them for biji.
    assert zh.meta["tags"] == ["CUDA", "GPU", "调度"]
    assert zh.meta["tags_en"] == {"CUDA": "CUDA", "GPU": "GPU", "调度": "Scheduling"}
    assert en.meta["tags"] == ["CUDA", "GPU", "Scheduling"]
    assert en.meta["tags_zh"] == {"CUDA": "CUDA", "GPU": "GPU", "Scheduling": "调度"}
    assert "tags_zh" not in zh.meta and "tags_en" not in en.meta
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


def test_tags_with_one_name_are_named_so_in_either_language(demo, tmp_path):
    english = Note.objects.get(slug="cuda-warp-scheduling-en")
    chinese = Note.objects.get(slug="cuda-warp-scheduling")
    for note in (english, chinese):
        note.tags.add(*Tag.objects.resolve(["Occupancy-only-english", "只有中文"]))
    export(tmp_path)
    en_file = tmp_path / "content/posts/cuda-warp-scheduling.en.md"
    zh_file = tmp_path / "content/posts/cuda-warp-scheduling.md"
    en, zh = read(en_file).meta, read(zh_file).meta
    for meta, other in ((en, "tags_zh"), (zh, "tags_en")):
        assert {"Occupancy-only-english", "只有中文"} <= set(meta["tags"])
        assert not {"Occupancy-only-english", "只有中文"} & set(meta[other])
        assert "" not in meta[other].values()
    for path in (en_file, zh_file):
        text = path.read_text("utf-8")
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
    gone = target / "content/posts/cuda-warp-scheduling.en.md"
    assert gone.is_file()
    mine = target / "content/posts/written-by-hand.md"
    mine.write_text("---\ntitle: mine\n---\n", "utf-8")
    Note.objects.get(slug="cuda-warp-scheduling-en").delete()
    out = StringIO()
    call_command("export_markdown", str(target), "--force", stdout=out)
    assert not gone.exists()
    assert "content/posts/cuda-warp-scheduling.en.md" in out.getvalue()
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
