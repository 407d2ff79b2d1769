"""The import page has two buttons, Check and Import, and every run says which it is: its
page's and its report's first line (what it did, or what importing would do, counted), its
state and progress while it runs, and the list of runs."""

import html
import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from blog.models import ImportRun, Note
from tests.background import run_queued_tasks
from tests.imports import zipped
from tests.samples import copy_sample


@pytest.fixture(autouse=True)
def checks_in_this_process(monkeypatch):
    """A check runs in a transaction rolled back, as on PostgreSQL, not in a child process on
    a copy (SQLite's way, which tests/test_import_dry_run_lock.py covers): its report is the
    same, and no process starts."""
    monkeypatch.setattr("blog.porting.dry_run.wanted", lambda: False)


def run(client, archive, mode, language="en"):
    """Upload ``archive`` with the button ``mode``, run it; its page as text."""
    response = client.post(
        reverse("admin:blog_note_import"),
        {"archive": archive, "format": "auto", "mode": mode},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run_queued_tasks()
    return html.unescape(client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language).text)


def first_line(page):
    """The first line of the run's own text (after the title and the History link)."""
    section = re.search(r'<div class="module aligned import-run">(.*?)</div>', page, re.S)[1]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", section)).strip()


def report_of(page):
    return re.search(r'<pre class="import-report">(.*?)</pre>', page, re.S)[1].splitlines()


@pytest.mark.django_db
def test_the_page_offers_check_and_import_and_no_dry_run_box(staff_client):
    page = staff_client.get(reverse("admin:blog_note_import"), HTTP_ACCEPT_LANGUAGE="en").text
    buttons = re.findall(r'<button type="submit" name="mode" value="(\w+)"[^>]*>(\w+)<', page)
    assert buttons == [("check", "Check"), ("import", "Import")]  # Enter presses Check
    assert "dry_run" not in page and 'type="checkbox"' not in page


@pytest.mark.django_db
def test_a_post_without_a_button_is_answered(staff_client, tmp_path):
    response = staff_client.post(
        reverse("admin:blog_note_import"),
        {"archive": zipped(copy_sample("jekyll", tmp_path)), "format": "auto"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200 and "Press Check or Import." in response.text
    assert not ImportRun.objects.exists()


@pytest.mark.django_db(transaction=True)  # the worker's loop commits
def test_a_check_and_an_import_say_so_first(staff_client, tmp_path):
    archive = copy_sample("jekyll", tmp_path)
    checked = run(staff_client, zipped(archive), "check")
    said = (
        "Checked: nothing was written; importing would create 3 and update 0. 2 errors: see below."
    )
    assert first_line(checked).startswith(said) and report_of(checked)[0] == said
    assert "<progress" not in checked and not Note.objects.exists()

    imported = run(staff_client, zipped(archive), "import")
    said = "Imported: 3 created, 0 updated. 2 errors: see below."
    assert first_line(imported).startswith(said) and report_of(imported)[0] == said

    listed = staff_client.get(reverse("admin:blog_importrun_changelist"), HTTP_ACCEPT_LANGUAGE="en")
    kinds = re.findall(r'<td class="field-kind">(\w+)</td>', listed.text)
    states = re.findall(r'<td class="field-state_label">(\w+)</td>', listed.text)
    assert kinds == ["Import", "Check"] and states == ["Imported", "Checked"]  # newest first
    assert "field-dry_run" not in listed.text


@pytest.mark.django_db(transaction=True)
def test_the_first_line_is_in_the_uploaders_language_and_counts_the_errors(staff_client, tmp_path):
    checked = run(staff_client, zipped(copy_sample("hugo", tmp_path)), "check", "zh-hans")
    assert (
        report_of(checked)[0]
        == "已检查：未写入任何内容；导入将新建 3 项，更新 0 项。1 个错误：见下文。"
    )


@pytest.mark.django_db
@pytest.mark.parametrize("dry_run, doing", [(True, "Checking"), (False, "Importing")])
def test_a_running_run_says_whether_it_checks_or_imports(staff_client, dry_run, doing):
    running = ImportRun.objects.create(
        user=User.objects.get(username="author"), archive_name="site.zip", format="auto",
        dry_run=dry_run, state="running", files_done=3, files_total=10,
    )  # fmt: skip
    page = html.unescape(
        staff_client.get(
            reverse("admin:blog_importrun_change", args=[running.pk]), HTTP_ACCEPT_LANGUAGE="en"
        ).text
    )
    assert first_line(page).startswith(f"{doing}: 3 of 10 files")
    assert f'<progress value="3" max="10">{doing}: 3 of 10 files</progress>' in page
