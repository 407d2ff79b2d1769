"""Edit conflicts through the real admin views, with two logged-in sessions.

A change form carries the version it was opened at; a save over a newer version (another
author's save, a bulk action, a restore) is refused with the author's text kept and the
difference shown, and nothing is overwritten.
"""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from blog.models import Note, Page, Status
from tests.factories import make_draft, make_page, note_form_data, page_form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_authors():
    clients = []
    for name in ("lin", "wang"):
        client = Client()
        # No password: hashing one costs seconds on a busy machine, and force_login needs none.
        user = get_user_model().objects.create_superuser(name, f"{name}@example.com", None)
        client.force_login(user)
        clients.append(client)
    return clients


def open_form(client, note):
    """GET the change form; the POST data it would send as it stands."""
    response = client.get(reverse("admin:blog_note_change", args=[note.pk]))
    assert response.status_code == 200
    opened_at = response.context["adminform"].form["edit_version"].value()
    return note_form_data(note, edit_version=opened_at)


def save(client, note, data):
    return client.post(reverse("admin:blog_note_change", args=[note.pk]), data)


def test_a_stale_form_is_refused_with_the_author_s_text_kept(two_authors):
    lin, wang = two_authors
    note = make_draft(title="调度笔记", body="第一段。\n")
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)

    lin_form["body"] = "第一段。\n\n林加的第二段。\n"
    assert save(lin, note, lin_form).status_code == 302

    wang_form["body"] = "第一段。\n\n王写的另一段，不能丢。\n"
    response = save(wang, note, wang_form)
    assert response.status_code == 200  # the form again, nothing saved
    html = response.content.decode()
    conflict = str(response.context["adminform"].form.non_field_errors())
    assert "lin" in conflict and 'class="edit-conflict"' in html  # who changed it
    assert "王写的另一段，不能丢。" in html  # wang's text kept in the form
    assert "林加的第二段。" in html  # the diff shows the newer saved text
    assert reverse("admin:blog_note_history", args=[note.pk]) in html
    note.refresh_from_db()
    assert "林加的第二段。" in note.body and "王写的" not in note.body


def test_saving_again_after_the_warning_is_a_deliberate_overwrite(two_authors):
    lin, wang = two_authors
    note = make_draft(body="原文\n")
    lin_form, wang_form = open_form(lin, note), open_form(wang, note)
    lin_form["body"] = "林的版本\n"
    save(lin, note, lin_form)
    wang_form["body"] = "王合并后的版本\n"
    refused = save(wang, note, wang_form)
    # The re-displayed form now carries the stored version: a second save goes through.
    wang_form["edit_version"] = refused.context["adminform"].form["edit_version"].value()
    assert save(wang, note, wang_form).status_code == 302
    note.refresh_from_db()
    assert note.body.strip() == "王合并后的版本"


def test_a_bulk_action_racing_an_open_form_wins_and_the_form_is_refused(two_authors):
    lin, wang = two_authors
    note = make_draft(title="草稿", body="正文\n")
    wang_form = open_form(wang, note)
    lin.post(
        reverse("admin:blog_note_changelist"),
        {"action": "publish_now", "_selected_action": [note.pk]},
    )
    wang_form["body"] = "王的修改\n"  # the form still says "draft"
    response = save(wang, note, wang_form)
    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors()
    note.refresh_from_db()
    assert note.status == Status.PUBLISHED and note.body.strip() == "正文"


def test_two_saves_of_one_open_form_version_do_not_both_pass(two_authors):
    """The same version submitted twice (a double click, a resent POST): the second is stale."""
    lin, _wang = two_authors
    note = make_draft(body="一\n")
    form = open_form(lin, note)
    form["body"] = "二\n"
    assert save(lin, note, form).status_code == 302
    form["body"] = "三\n"
    assert save(lin, note, form).status_code == 200
    assert Note.objects.get(pk=note.pk).body.strip() == "二"


def test_a_rerender_does_not_make_open_forms_stale(two_authors):
    lin, _wang = two_authors
    note = make_draft(body="正文\n")
    form = open_form(lin, note)
    Note.objects.get(pk=note.pk).render()  # a renderer upgrade, not an edit
    form["body"] = "新正文\n"
    assert save(lin, note, form).status_code == 302


def test_pages_have_the_same_guard(two_authors):
    lin, wang = two_authors
    page = make_page(title="关于", slug="about", body="我写 GPU。")
    url = reverse("admin:blog_page_change", args=[page.pk])

    def form_of(client):
        form = client.get(url).context["adminform"].form
        return page_form_data(page, edit_version=form["edit_version"].value())

    lin_form, wang_form = form_of(lin), form_of(wang)
    lin_form["body"] = "林改过。"
    assert lin.post(url, lin_form).status_code == 302
    wang_form["body"] = "王改过。"
    response = wang.post(url, wang_form)
    assert response.status_code == 200
    assert "王改过。" in response.content.decode()
    assert Page.objects.get(pk=page.pk).body == "林改过。"
