"""Imports take their fair share of the worker and no more: they wait on a queue of their own
behind the site's other work, each has its time (the files not reached by then are reported,
and the run ends with its report), and a user may have two waiting or running at a time."""

import html

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from blog.background.worker import Worker
from blog.background.workers import current_worker_id
from blog.models import ImportRun, Note
from blog.porting.importer import Importer
from tests.background import fails_until, lines, run_queued_tasks
from tests.imports import site_folder, zipped
from tests.samples import copy_sample


def upload(client, archive, language="en", dry_run=False):
    data = {"archive": archive, "format": "auto", "mode": "check" if dry_run else "import"}
    return client.post(reverse("admin:blog_note_import"), data, HTTP_ACCEPT_LANGUAGE=language)


def run_worker(queues=("*",), excluded=(), max_tasks=None):
    Worker(
        queue_names=list(queues),
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=max_tasks,
        worker_id=current_worker_id(),
        excluded_queue_names=list(excluded),
    ).run()


def dated_notes(root, count=5):
    return site_folder(
        root,
        {
            f"content/posts/{name}.md": f"---\ntitle: {name}\ndate: 2024-01-0{n + 1}\n---\nText.\n"
            for n, name in enumerate("abcde"[:count])
        },
    )


@pytest.mark.django_db(transaction=True)
def test_imports_wait_behind_the_sites_other_work(staff_client, tmp_path):
    """A worker of the other queues never takes an import; a worker of every queue takes
    what else waits first (an email, a card), then the import."""
    assert upload(staff_client, zipped(copy_sample("jekyll", tmp_path))).status_code == 302
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
    fails_until.enqueue(str(tmp_path / "first"), 1)  # stands for an email, queued later

    run_worker(excluded=["imports"])  # `db_worker --exclude-queues imports`
    assert lines(tmp_path / "first" / "runs") and ImportRun.objects.get().state == "queued"

    fails_until.enqueue(str(tmp_path / "second"), 1)
    run_worker(max_tasks=1)  # one worker for everything: the other work first
    assert lines(tmp_path / "second" / "runs") and ImportRun.objects.get().state == "queued"

    run_worker(queues=["imports"])  # `db_worker --queue-name imports`
    assert ImportRun.objects.get().state == "done" and Note.objects.exists()


@pytest.mark.django_db
def test_a_user_may_have_two_imports_waiting_and_is_told_so_in_their_language(
    staff_client, tmp_path
):
    page = staff_client.get(reverse("admin:blog_note_import"), HTTP_ACCEPT_LANGUAGE="en")
    assert "An import takes at most 15 minutes" in page.content.decode()
    assert "you may have 2 imports waiting or running at a time" in page.content.decode()
    site = copy_sample("jekyll", tmp_path)
    for _ in range(2):
        assert upload(staff_client, zipped(site)).status_code == 302
    refused = upload(staff_client, zipped(site))
    assert refused.status_code == 200
    assert (
        "You have 2 imports waiting or running, as many as one user may have at a time."
        in html.unescape(refused.content.decode())
    )
    in_chinese = upload(staff_client, zipped(site), language="zh-hans")
    assert "你已有 2 个导入在等待或进行中" in in_chinese.content.decode()
    assert ImportRun.objects.count() == 2

    writer = User.objects.create_user("writer", password="x", is_staff=True)
    writer.user_permissions.add(Permission.objects.get(codename="add_note"))
    other = Client()
    other.force_login(writer)
    assert upload(other, zipped(site)).status_code == 302  # each user counts their own

    ImportRun.objects.filter(user__username="author").update(state="done")
    assert upload(staff_client, zipped(site), dry_run=True).status_code == 302


@pytest.mark.django_db(transaction=True)
def test_the_files_an_import_had_no_time_for_are_reported_and_the_run_ends(
    staff_client, tmp_path, settings, monkeypatch
):
    """Each file takes a second of a clock of the test's; the import has 2.5: three files
    are imported, two reported as not imported, and the run ends with its report."""
    clock = [0.0]
    monkeypatch.setattr("blog.porting.limits.monotonic", lambda: clock[0])
    storing = Importer.store

    def store_taking_a_second(self, *args):
        clock[0] += 1
        return storing(self, *args)

    monkeypatch.setattr(Importer, "store", store_taking_a_second)
    settings.BIJI_IMPORT_SECONDS = 2.5
    run_page = upload(staff_client, zipped(dated_notes(tmp_path / "site")))["Location"]
    run_queued_tasks()

    run = ImportRun.objects.get()
    assert run.state == "done" and run.error == ""
    report = run.report.splitlines()
    for name in "de":
        assert (
            f"content/posts/{name}.md: error: not imported: time ran out: import it in another run"
            in report
        )
        assert f"content/posts/{name}.md: skipped: time ran out" in report
    assert report[-1].startswith("3 created, 0 updated, 0 unchanged, 2 skipped; 2 errors")
    assert sorted(Note.objects.values_list("title", flat=True)) == ["a", "b", "c"]
    shown = html.unescape(staff_client.get(run_page, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert "time ran out: import it in another run" in shown


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_dry_run_keeps_to_the_imports_time_too(staff_client, tmp_path, settings):
    """The dry run's child process is given the time left: none here."""
    settings.BIJI_IMPORT_SECONDS = 1e-6
    upload(staff_client, zipped(dated_notes(tmp_path / "site", count=2)), dry_run=True)
    run_queued_tasks()
    run = ImportRun.objects.get()
    assert run.state == "done"
    assert run.report.splitlines()[-1].startswith(
        "Dry run, nothing written: 0 created, 0 updated, 0 unchanged, 2 skipped; 2 errors"
    )
    assert "content/posts/a.md: would be skipped: time ran out" in run.report
