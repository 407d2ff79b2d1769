"""The admin's import report speaks the language of the admin who uploaded the archive, and
says under each file how each of its front-matter keys was read; the command line's report
stays as scripts read it."""

import html
import re

import pytest
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
    data = {"archive": archive, "format": "auto", **({"dry_run": "on"} if dry_run else {})}
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
    assert "content/posts/warps.md: 将创建: note warps (en)" in report
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
