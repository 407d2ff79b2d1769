"""The admin's import report speaks the language of the admin who uploaded the archive, and
says under each file how each of its front-matter keys was read; the command line's report
stays as scripts read it."""

import html
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from blog.porting.run import import_markdown
from tests.background import run_queued_tasks
from tests.imports import site_folder, zipped

pytestmark = pytest.mark.django_db(transaction=True)  # the worker's loop commits

SITE = {
    "content/posts/warps.md": (
        "---\n"
        "title: Warp scheduling\n"
        "date: 2025-03-01T09:00:00+08:00\n"
        "lastmod: 2025-03-02 10:30\n"
        "tags: [GPU, CUDA]\n"
        "categories: [GPU notes, Hardware]\n"
        "weight2: 7\n"
        "description: Four warps per scheduler.\n"
        "summary: Also a summary, read second.\n"
        "---\n\nBody.\n"
    ),
    "_posts/2024-03-16-cache.en.md": "---\ntitle: Caches\ntags: a, b, c\n---\n\nBody.\n",
    "content/posts/zh.md": "---\ntitle: 调度器\n---\n\n正文。\n",
}


def run_page(client, archive, language, dry_run=False):
    """Upload ``archive`` from an admin in ``language``, run the import, return the run's
    page as that admin sees it, as text."""
    data = {"archive": archive, "format": "auto", "mode": "check" if dry_run else "import"}
    response = client.post(reverse("admin:blog_note_import"), data, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 302, response.content.decode()[:2000]
    run_queued_tasks()
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    return html.unescape(page.content.decode())


def report_of(page):
    return re.search(r'<pre class="import-report">(.*?)</pre>', page, re.S)[1]


def test_each_file_says_how_each_front_matter_key_was_read(staff_client, tmp_path):
    report = report_of(run_page(staff_client, zipped(site_folder(tmp_path, SITE)), "en"))
    lines = report.splitlines()
    warps = lines[lines.index("content/posts/warps.md: created: note warps (en)") + 1 :]
    assert warps[:9] == [
        "    title: “Warp scheduling” (from “title”)",
        "    published at: 2025-03-01 09:00+08:00 (from “date”)",
        "    updated: 2025-03-02 10:30+08:00, no time zone given: read in Asia/Singapore "
        "(from “lastmod”)",
        "    tags: 2 tags (a list): GPU, CUDA (from “tags”)",
        "    series: “GPU notes”; 1 more category became a tag (from “categories”)",
        "    “weight2”: not read (not a key biji reads)",
        "    summary: 25 characters (from “description”)",
        "    “summary”: not read (the summary comes from “description”)",
        "    language: English (guessed from the title and text)",
    ]
    jekyll = lines[lines.index("_posts/2024-03-16-cache.en.md: created: note cache (en)") + 1 :]
    assert jekyll[:4] == [
        "    title: “Caches” (from “title”)",
        "    tags: 3 tags (comma-separated text): a, b, c (from “tags”)",
        "    published at: 2024-03-16 00:00+08:00, no time zone given: read in Asia/Singapore "
        "(from the file name)",
        "    language: English (from the file name)",
    ]
    assert "    language: Chinese (guessed from the title and text)" in lines


def test_the_report_is_in_the_language_of_the_admin_who_uploaded_it(staff_client, tmp_path):
    page = run_page(staff_client, zipped(site_folder(tmp_path, SITE)), "zh-hans", dry_run=True)
    report = report_of(page)
    assert "content/posts/warps.md: 将创建: 笔记 warps（en）" in report
    assert "    标签：2 个标签（列表）：GPU, CUDA（来自“tags”）" in report
    assert "    “weight2”：未读取（biji 不读取这个键）" in report
    summary = report.splitlines()[-1]
    assert summary.startswith("试运行，未写入任何内容：新建 3，更新 0，未变 0，跳过 0；")
    assert "content/posts/zh.md: 警告: " in report
    for english in ("would be", ": warning: ", ": error: ", "not read", "(from ", "Dry run"):
        assert english not in report


def test_the_command_line_report_is_unchanged_by_the_interface_language(tmp_path, settings):
    """What scripts and the docs quote: English words, whatever LANGUAGE_CODE is."""
    settings.LANGUAGE_CODE = "zh-hans"
    report = import_markdown([site_folder(tmp_path, SITE)], dry_run=True)
    lines = report.lines()
    assert "content/posts/warps.md: would be created: note warps (en)" in lines
    assert lines[-1].startswith("Dry run, nothing written: 3 created, 0 updated")
    assert not report.readings  # how keys were read: the admin's report only


# A folder with a problem of each kind an author meets first.
PROBLEMS = {
    "content/posts/untitled.md": "---\ndate: 2025-03-01\n---\n\nA note without a title.\n",
    "content/posts/someday.md": "---\ntitle: Someday\ndate: someday\n---\n\nBody.\n",
    "content/posts/warps.md": (
        "---\ntitle: Warp scheduling\ndate: 2025-03-01\ncategories: [GPU 笔记]\n---\n\nBody.\n"
    ),
    "content/posts/README.md": "A folder's read-me, without front matter.\n",
}
NOT_TEXT = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"  # an image saved under a .md name
QUOTED = re.compile(r"'[^']*'|“[^”]*”")  # values quoted from the files: their own words
ENGLISH = re.compile(r"[A-Za-z]{2,}[ ,;:()]+[A-Za-z]{2,}")  # two English words in a row


def problems_folder(root):
    folder = site_folder(root, PROBLEMS)
    (folder / "content/posts/photo.md").write_bytes(NOT_TEXT)
    return folder


def test_the_problems_are_in_the_language_of_the_admin_who_uploaded_it(staff_client, tmp_path):
    archive = zipped(problems_folder(tmp_path))
    lines = report_of(run_page(staff_client, archive, "zh-hans", dry_run=True)).splitlines()
    for line in (
        "content/posts/untitled.md:1: 错误: 未导入：没有标题",
        "content/posts/someday.md:3: 错误: 未导入：date：'someday' 不是日期",
        "content/posts/photo.md: 错误: 未导入：不是 UTF-8 文本",
        "content/posts/warps.md: 警告: 新系列 'GPU 笔记'：请在管理后台为它填写另一种语言的标题",
        "content/posts/untitled.md: 将跳过: 错误",
        "content/posts/README.md: 将跳过: 没有前置元数据：不是笔记",
        "content/posts/warps.md: 将创建: 笔记 warps（en）",
    ):
        assert line in lines
    told = [
        line.split(f": {word}: ", 1)[1]
        for line in lines
        for word in ("错误", "警告", "将跳过", "将创建")
        if f": {word}: " in line
    ]
    assert len(told) == 9  # 3 errors, 1 warning, 4 files skipped, 1 created
    assert not [text for text in told if ENGLISH.search(QUOTED.sub("", text))]


def test_the_same_problems_read_english_for_an_english_admin(staff_client, tmp_path):
    archive = zipped(problems_folder(tmp_path))
    lines = report_of(run_page(staff_client, archive, "en", dry_run=True)).splitlines()
    for line in (
        "content/posts/untitled.md:1: error: not imported: no title",
        "content/posts/someday.md:3: error: not imported: date: 'someday' is not a date",
        "content/posts/photo.md: error: not imported: not UTF-8 text",
        "content/posts/warps.md: warning: new series 'GPU 笔记': give it its other title in "
        "the admin",
        "content/posts/untitled.md: would be skipped: error",
        "content/posts/README.md: would be skipped: no front matter: not a note",
        "content/posts/warps.md: would be created: note warps (en)",
    ):
        assert line in lines
    assert not any(re.search(r"[\u4e00-\u9fff]", QUOTED.sub("", line)) for line in lines)


def test_one_import_can_be_reported_in_either_language(tmp_path):
    """The messages are worded when the report is shown, not when the import ran: the
    admin's language decides, not the one active during the import."""
    report = import_markdown([problems_folder(tmp_path)], dry_run=True)
    chinese, english = report.lines("zh-hans"), report.lines("en")
    assert "content/posts/untitled.md:1: 错误: 未导入：没有标题" in chinese
    assert "content/posts/untitled.md:1: error: not imported: no title" in english
    assert report.lines() == english  # the command line's, and the scripts' that read it


def test_the_commands_print_english_whatever_the_site_language(tmp_path, settings):
    """Even the reasons that come from elsewhere (the image check's) are English on the
    command line, as its docs and the operators' logs have them."""
    settings.LANGUAGE_CODE = "zh-hans"
    folder = site_folder(tmp_path, {
        "content/posts/pictured.md": "---\ntitle: Pictured\ndate: 2025-03-01\n---\n\n"
        "![a photo](photo.png)\n",
        "content/posts/photo.png": "not an image",
    })  # fmt: skip
    out, err = StringIO(), StringIO()
    call_command("import_markdown", str(folder), "--dry-run", stdout=out, stderr=err)
    assert (
        "content/posts/pictured.md:6: warning: photo.png: not imported: The file is not an image "
        "that can be read." in out.getvalue().splitlines()
    )
