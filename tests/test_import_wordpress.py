"""import_wordpress: a WXR export becomes notes and pages, with the same report and rules."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from blog.models import LegacyPath, Note, Page, Status
from blog.porting.run import import_wordpress
from blog.porting.wordpress import to_markdown
from tests.samples import copy_sample

pytestmark = pytest.mark.django_db


def text(report):
    return "\n".join(report.lines())


@pytest.fixture
def export_file(tmp_path):
    return copy_sample("wordpress", tmp_path) / "export.xml"


def test_posts_pages_drafts_terms_and_featured_image(export_file, settings):
    report = import_wordpress(export_file)
    post = Note.objects.get(slug="async-scheduling")
    assert post.language == "zh-hans" and post.status == Status.PUBLISHED
    assert post.published_at.isoformat() == "2025-08-17T13:40:00+00:00"
    assert post.updated_at.isoformat() == "2025-08-18T02:00:00+00:00"
    assert post.series.title_zh == "GPU 笔记"
    assert {t.name or t.name_zh for t in post.tags.all()} == {"推理", "Scheduling"}
    assert post.summary == "CPU 提前一步准备下一个 batch。"
    assert "decode 阶段每一步的 GPU 计算只有**几毫秒**。" in post.body
    assert "## 同步循环的 bubble" in post.body
    assert "```python\nfor step in range(n):" in post.body
    assert "![流水线](/media/uploads/" in post.body  # found in wp-content/uploads, stored
    assert post.cover.name.startswith("uploads/")
    assert len(list(Path(settings.MEDIA_ROOT).rglob("*.png"))) == 2
    assert LegacyPath.objects.get(path="/2025/08/17/async-scheduling/").note == post
    draft = Note.objects.get(language="en")
    assert draft.status == Status.DRAFT and draft.published_at is None and draft.series is None
    assert "- schedule\n- launch" in draft.body
    page = Page.objects.get(slug="about")
    assert page.body == "我写 GPU 的笔记。\n\n第二段。\n"
    lines = text(report)
    assert 'kept as text (not translated): [gallery ids="12,13"]' in lines
    assert "remote image left as a link: https://cdn.example.net/elsewhere.png" in lines
    assert "export.xml#item 4 (id 13): error: not imported: no title" in lines
    assert "export.xml#item 6 (id 50): skipped: nav_menu_item" in lines
    assert report.counts == {"created": 3, "skipped": 2}


def test_importing_again_changes_nothing(export_file, settings):
    import_wordpress(export_file)
    before = {n.slug: (n.body, n.updated_at, str(n.cover)) for n in Note.objects.all()}
    report = import_wordpress(export_file)
    assert report.counts == {"unchanged": 3, "skipped": 2}
    assert {n.slug: (n.body, n.updated_at, str(n.cover)) for n in Note.objects.all()} == before
    assert len(list(Path(settings.MEDIA_ROOT).rglob("*.png"))) == 2


def test_dry_run_and_a_broken_export(export_file, tmp_path):
    out = StringIO()
    call_command("import_wordpress", str(export_file), "--dry-run", stdout=out, stderr=StringIO())
    assert "Dry run, nothing written: 3 created" in out.getvalue()
    assert Note.objects.count() == 0
    broken = tmp_path / "broken.xml"
    broken.write_text("<rss><channel><item><title>半个</title></channel></rss>", "utf-8")
    report = import_wordpress(broken)
    assert "broken.xml:1: error: not a readable WordPress export" in text(report)


def test_wordpress_paragraphs_and_markup_become_markdown():
    html = "第一段\n第二行\n\n<h3>Title</h3>\n\n<em>emph</em> and <a href='https://x.example'>a</a>"
    assert to_markdown(html) == (
        "第一段  \n第二行\n\n### Title\n\n*emph* and [a](https://x.example)\n"
    )
