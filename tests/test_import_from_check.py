"""A checked archive is imported from its check's page without a second upload: kept in the
run's private folder for BIJI_CHECKED_ARCHIVE_DAYS, imported once, only by its uploader or
someone who sees every run and may import, within the per-user cap; past its days it is
gone, and the page says so."""

import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from blog.models import ImportRun, Note
from blog.porting.run_folders import ARCHIVE, run_folder, store_archive
from tests.background import run_queued_tasks
from tests.imports import page, upload, zipped
from tests.samples import copy_sample

BUTTON = "Import this archive"


def import_from(client, check):
    return client.post(
        reverse("admin:blog_importrun_import", args=[check.pk]), HTTP_ACCEPT_LANGUAGE="en"
    )


def finished_check(user, finished_at=None):
    """A check that ended with its report and kept its archive (as the worker leaves it)."""
    check = ImportRun.objects.create(
        user=user, archive_name="site.zip", format="auto", dry_run=True, state="done",
        finished_at=finished_at or timezone.now(), report="Checked: …",
    )  # fmt: skip
    store_archive(check.pk, SimpleUploadedFile("site.zip", b"PK\x05\x06" + bytes(18)))
    return check


def logged_in(username, *codenames):
    user = User.objects.create_user(username, password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.slow  # the check's child process (SQLite: a dry run on a copy)
@pytest.mark.django_db(transaction=True)  # the worker's loop commits
def test_a_check_is_imported_from_its_page_without_a_second_upload(
    staff_client, settings, tmp_path
):
    check_page = upload(staff_client, zipped(copy_sample("jekyll", tmp_path)), "check")
    run_queued_tasks()
    check = ImportRun.objects.get()
    kept = run_folder(check.pk) / ARCHIVE
    assert not Note.objects.exists() and kept.is_file()
    assert [p.name for p in run_folder(check.pk).iterdir()] == [ARCHIVE]  # nothing unpacked
    shown = page(staff_client, check_page)
    assert BUTTON in shown and "The checked archive is kept until" in shown

    response = import_from(staff_client, check)
    run = ImportRun.objects.exclude(pk=check.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:blog_importrun_change", args=[run.pk])
    assert (run.dry_run, run.archive_name, run.user) == (False, "site.zip", check.user)
    run_queued_tasks()

    assert Note.objects.count() == 3
    assert page(staff_client, response["Location"]).count("Imported: 3 created, 0 updated.") == 2
    assert not any(settings.BIJI_PRIVATE_ROOT.rglob("*.zip"))  # imported: gone
    shown = page(staff_client, check_page)
    assert BUTTON not in shown and "This archive is no longer kept" in shown

    again = import_from(staff_client, check)  # a second click, or a second tab
    assert again.status_code == 302 and again["Location"] == check_page
    assert "This archive is no longer kept" in page(staff_client, check_page)
    assert ImportRun.objects.count() == 2


@pytest.mark.django_db
def test_only_its_uploader_or_who_sees_every_run_and_may_import_gets_the_button(staff_client):
    check = finished_check(User.objects.get(username="author"))
    check_page = reverse("admin:blog_importrun_change", args=[check.pk])
    import_url = reverse("admin:blog_importrun_import", args=[check.pk])

    another_importer = logged_in("importer", "add_note")  # sees only their own runs
    assert import_from(another_importer, check).status_code == 403
    seer = logged_in("seer", "view_importrun")  # sees every run, may not import
    assert BUTTON not in page(seer, check_page)
    assert import_from(seer, check).status_code == 403
    assert staff_client.get(import_url).status_code == 405
    forged = Client(enforce_csrf_checks=True)  # a POST from another site: no CSRF token
    forged.force_login(User.objects.get(username="author"))
    assert forged.post(import_url).status_code == 403
    assert ImportRun.objects.count() == 1 and (run_folder(check.pk) / ARCHIVE).is_file()

    User.objects.get(username="seer").user_permissions.add(
        Permission.objects.get(codename="add_note")
    )
    assert BUTTON in page(seer, check_page)
    assert import_from(seer, check).status_code == 302
    assert ImportRun.objects.exclude(pk=check.pk).get().user.username == "seer"


@pytest.mark.django_db
def test_importing_a_check_counts_towards_the_users_imports(staff_client, settings, tmp_path):
    settings.BIJI_IMPORTS_PER_USER = 1
    check = finished_check(User.objects.get(username="author"))
    upload(staff_client, zipped(copy_sample("jekyll", tmp_path)), "import")  # waiting
    response = import_from(staff_client, check)
    assert response.status_code == 302
    refused = page(staff_client, response["Location"])
    assert (
        "You have 1 import waiting or running, as many as one user may have at a time. Import "
        "this archive once it has finished." in refused
    )
    assert ImportRun.objects.count() == 2 and (run_folder(check.pk) / ARCHIVE).is_file()


@pytest.mark.django_db
def test_an_expired_archive_is_not_offered_and_is_deleted(staff_client, settings):
    settings.BIJI_CHECKED_ARCHIVE_DAYS = 7
    author = User.objects.get(username="author")
    expired = finished_check(author, timezone.now() - timedelta(days=7, minutes=1))
    recent = finished_check(author, timezone.now() - timedelta(days=6))
    shown = page(staff_client, reverse("admin:blog_importrun_change", args=[expired.pk]))
    assert BUTTON not in shown
    assert (
        "This archive is no longer kept: it was imported already, or checked more than 7 days"
        in shown
    )
    import_from(staff_client, expired)
    assert ImportRun.objects.count() == 2

    out = io.StringIO()
    call_command("delete_checked_archives", stdout=out)
    assert out.getvalue().startswith("1 folders deleted")
    assert not run_folder(expired.pk).exists() and (run_folder(recent.pk) / ARCHIVE).is_file()


@pytest.mark.django_db(transaction=True)
def test_each_run_as_it_starts_deletes_the_expired_archives(staff_client, settings, tmp_path):
    expired = finished_check(
        User.objects.get(username="author"), timezone.now() - timedelta(days=8)
    )
    upload(staff_client, zipped(copy_sample("jekyll", tmp_path)), "import")
    run_queued_tasks()
    assert not run_folder(expired.pk).exists()
