"""import_markdown: Hexo, Hugo and Jekyll folders become notes; problems are reported, not raised.

The samples (tests/samples/) are small real-shaped sites with Chinese and English posts,
drafts, translations, images, shortcodes and broken files.
"""

import io
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse

from blog.models import LegacyPath, Note, Page, Status
from blog.porting.run import import_markdown
from tests.background import run_queued_tasks
from tests.factories import make_staff
from tests.imports import zipped
from tests.samples import copy_sample

pytestmark = pytest.mark.django_db


def media_files(settings):
    root = Path(settings.MEDIA_ROOT)
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())


def lines(report):
    return "\n".join(report.lines())


def test_hexo_posts_translations_images_and_tags(tmp_path, settings):
    report = import_markdown([copy_sample("hexo", tmp_path)])
    zh = Note.objects.get(slug="flashattention-tiling")
    en = Note.objects.get(language="en")
    assert zh.counterpart == en and en.status == Status.DRAFT
    assert zh.series.title_zh == "GPU 笔记" and zh.series_position == 1
    assert sorted(zh.tags.values_list("name_zh", flat=True)) == ["", "注意力"]
    assert zh.summary == "注意力的瓶颈不在算力，而在 HBM 与 SRAM 之间的搬运。"
    assert "```cuda\n__global__ void tile" in zh.body
    assert "{% not a tag %}" in zh.body  # code is never touched
    assert "{% youtube dQw4w9WgXcQ %}" in zh.body  # kept, visible
    assert "source/_posts/flashattention.md:27: kept as text" in lines(report)
    assert LegacyPath.objects.get(path="/2025/08/17/flashattention/").note == zh
    [image] = media_files(settings)
    assert f"![分块示意](/media/{image.as_posix()})" in zh.body
    assert Page.objects.get(slug="about").is_published
    assert zh.updated_at.isoformat() == "2025-08-20T01:00:00+00:00"


def test_a_broken_file_is_reported_with_its_line_and_the_rest_imported(tmp_path):
    report = import_markdown([copy_sample("hexo", tmp_path)])
    assert (
        "source/_posts/broken.md:4: error: not imported: front matter is not valid YAML"
        in lines(report)
    )
    assert Note.objects.count() == 2
    assert report.counts == {"created": 3, "skipped": 1}


def test_hugo_bundles_toml_translations_cover_and_shortcodes(tmp_path, settings):
    report = import_markdown([copy_sample("hugo", tmp_path)])
    zh = Note.objects.get(slug="warp-scheduling")
    en = Note.objects.get(slug="warp-scheduling-en")
    assert zh.counterpart == en and zh.language == "zh-hans" and en.language == "en"
    assert zh.summary == "SM 里的 warp 调度器如何藏住延迟。"
    assert zh.cover.name.startswith("uploads/") and zh.series_position == 1
    assert "![一个 SM](/media/uploads/" in zh.body
    assert "```cuda\n__syncwarp();\n```" in en.body
    assert {t.name_zh for t in en.tags.all()} >= {"调度"}
    assert "{{< not-a-shortcode-in-code >}}" in zh.body
    text = lines(report)
    assert (
        "content/posts/warp-scheduling/index.md:20: kept as text (not translated): "
        '{{< ref "other.md" >}}' in text
    )
    assert "remote image left as a link: https://example.com/remote.png" in text
    assert "content/posts/no-title.md:1: error: not imported: no title" in text
    assert "content/posts/draft-note.md:11: warning: image not found: /images/missing.png" in text
    draft = Note.objects.get(slug="draft-note")
    assert draft.status == Status.DRAFT
    assert (draft.source_author, draft.source_title) == ("Ines Okafor", "Reading Nsight traces")
    assert LegacyPath.objects.get(path="/posts/warp/").note == zh
    assert len(media_files(settings)) == 2


def test_jekyll_dates_from_file_names_and_series_in_date_order(tmp_path):
    report = import_markdown([copy_sample("jekyll", tmp_path)])
    amdahl = Note.objects.get(slug="amdahl")
    models = Note.objects.get(slug="programming-models")
    assert amdahl.published_at.date().isoformat() == "2024-03-01"  # 2024-03-02 in Singapore
    assert (amdahl.series_position, models.series_position) == (1, 2)
    assert amdahl.summary == "串行部分决定了加速比的上限。"
    assert "```python\ndef speedup" in amdahl.body and "/media/uploads/" in amdahl.body
    assert Note.objects.get(slug="unfinished").status == Status.DRAFT
    assert LegacyPath.objects.get(path="/course/amdahl.html").note == amdahl
    text = lines(report)
    assert "_posts/2024-03-16-cache-coherence.md:4: error: not imported: date" in text
    assert "_posts/2024-13-45-bad-name.md: error" in text
    assert "README.md: skipped: no front matter" in text
    assert "2024-03-09-programming-models.md:7: kept as text (not translated): {% include" in text


def test_importing_again_changes_nothing_and_stores_no_second_copy(tmp_path, settings):
    for name in ("hexo", "hugo", "jekyll"):
        import_markdown([copy_sample(name, tmp_path)])
    notes = {n.slug: (n.body, n.updated_at, n.translation_id) for n in Note.objects.all()}
    files = media_files(settings)
    for name in ("hexo", "hugo", "jekyll"):
        report = import_markdown([tmp_path / name])
        assert report.counts["updated"] == 0, lines(report)
        assert report.counts["created"] == report.counts["updated"] == 0
        assert report.counts["unchanged"] >= 3
    assert {n.slug: (n.body, n.updated_at, n.translation_id) for n in Note.objects.all()} == notes
    assert media_files(settings) == files


def test_an_edited_file_updates_its_note_in_place(tmp_path):
    site = copy_sample("jekyll", tmp_path)
    import_markdown([site])
    post = site / "_posts/2024-03-09-programming-models.md"
    post.write_text(post.read_text("utf-8").replace("共享内存", "共享地址空间"), "utf-8")
    report = import_markdown([post])
    assert report.counts == {"updated": 1}
    assert "共享地址空间" in Note.objects.get(slug="programming-models").body


def test_dry_run_writes_nothing(tmp_path, settings):
    report = import_markdown([copy_sample("hugo", tmp_path)], dry_run=True)
    assert report.counts["created"] == 3
    assert "would be created" in lines(report)
    assert Note.objects.count() == 0 and LegacyPath.objects.count() == 0
    assert media_files(settings) == []


def test_a_file_failing_in_the_database_leaves_no_note_and_no_image(tmp_path, settings):
    site = copy_sample("hugo", tmp_path)
    bad = site / "content/posts/warp-scheduling/index.md"
    aliases = 'aliases = ["/posts/warp/"]'
    text = bad.read_text("utf-8").replace(aliases, f'{aliases}\nsource_url = "javascript:alert(1)"')
    bad.write_text(text, "utf-8")
    report = import_markdown([site])
    assert "content/posts/warp-scheduling/index.md: error: not imported" in lines(report)
    assert not Note.objects.filter(language="zh-hans").exists()
    assert not LegacyPath.objects.filter(path="/posts/warp/").exists()
    assert media_files(settings) == []  # the bundle's two images went with it


def test_command_prints_the_report(tmp_path):
    out = StringIO()
    call_command("import_markdown", str(copy_sample("jekyll", tmp_path)), "--dry-run", stdout=out,
                 stderr=StringIO())  # fmt: skip
    assert "Dry run, nothing written: 3 created" in out.getvalue()
    assert Note.objects.count() == 0


def test_old_permalink_pattern_redirect_source(tmp_path):
    import_markdown([copy_sample("jekyll", tmp_path)], permalink="/:year/:month/:day/:title.html")
    assert LegacyPath.objects.get(path="/2024/03/02/amdahl.html").note.slug == "amdahl"


@pytest.fixture
def admin_urls(staff_client):
    """The import page is linked from the notes' change list (NoteAdmin.get_urls)."""
    changelist = staff_client.get(reverse("admin:blog_note_changelist")).content.decode()
    assert reverse("admin:blog_note_import") == "/admin/blog/note/import/"
    assert 'href="/admin/blog/note/import/"' in changelist


@pytest.mark.django_db(transaction=True)  # the worker's loop commits (tests/background.py)
def test_admin_page_imports_an_uploaded_zip(admin_urls, staff_client, tmp_path):
    archive = zipped(copy_sample("hugo", tmp_path))
    response = staff_client.post(
        "/admin/blog/note/import/",
        {"archive": archive, "format": "auto", "mode": "import"},
        HTTP_ACCEPT_LANGUAGE="en",  # the report is written in the uploader's language
    )
    assert response.status_code == 302  # to the run's page: the import runs in the background
    run_queued_tasks()
    response = staff_client.get(response["Location"])
    assert "content/posts/no-title.md:1: error: not imported: no title" in response.content.decode()
    assert Note.objects.filter(slug="warp-scheduling").exists()


def test_admin_page_refuses_zip_slip_and_authors_without_the_add_permission(
    admin_urls, client, staff_client, tmp_path
):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("../evil.md", "---\ntitle: x\n---\n")
    buffer.seek(0)
    buffer.name = "evil.zip"
    response = staff_client.post(
        "/admin/blog/note/import/",
        {"archive": buffer, "format": "auto", "mode": "import"},
        HTTP_ACCEPT_LANGUAGE="en",  # the admin follows the browser's language
    )
    assert "outside its folder" in response.content.decode() and Note.objects.count() == 0
    user = make_staff("writer")
    user.is_superuser = False
    user.save()
    user.user_permissions.add(Permission.objects.get(codename="change_note"))
    client.force_login(user)
    assert client.get("/admin/blog/note/import/").status_code == 403
    client.logout()
    assert client.get("/admin/blog/note/import/").status_code == 302  # to the login page


def test_each_imported_note_gets_a_revision_naming_its_file(tmp_path):
    from blog.models.revisions import versions_of

    site = copy_sample("jekyll", tmp_path)
    import_markdown([site])
    import_markdown([site])  # unchanged: no second revision
    [version] = versions_of(Note.objects.get(slug="amdahl"))
    assert version.revision.comment == "Imported from _posts/2024-03-02-amdahl.md"
