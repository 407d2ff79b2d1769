"""Revisions (django-reversion): every admin save, bulk action and restore keeps one; the
history shows author, time and a readable diff; restoring is a new revision, re-rendered."""

import pytest
import reversion
from django.contrib.auth import get_user_model
from django.urls import reverse

from blog.authoring.history import snapshot
from blog.models import Note, Status
from blog.models.revisions import latest_version, recording, tag_names, version_of, versions_of
from tests.factories import make_draft, make_page, make_tag, note_form_data, page_form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(client):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    return client


def post_note(client, note, **changes):
    data = note_form_data(note, **changes)
    response = client.post(reverse("admin:blog_note_change", args=[note.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    return Note.objects.get(pk=note.pk)


def test_each_admin_save_keeps_a_revision_with_author_tags_and_comment(author):
    make_tag(name="Scheduling", name_zh="调度")
    note = make_draft(title="调度", body="第一版\n")
    post_note(author, note, body="第二版\n", tags="调度, CUDA")
    post_note(author, note, body="第三版\n", tags="CUDA")
    versions = list(versions_of(note))
    assert len(versions) == 2
    newest, older = versions
    assert newest.revision.user.username == "lin"
    assert newest.field_dict["body"].strip() == "第三版"
    assert tag_names(older) == ["CUDA", "Scheduling"] and tag_names(newest) == ["CUDA"]
    assert older.revision.get_comment()  # the admin's change message
    assert "body_html" not in newest.field_dict  # derived fields are rendered, not kept


def test_history_lists_revisions_and_compare_shows_a_readable_diff(author):
    note = make_draft(title="旧标题", body="保留的一行\n旧的一行\n")
    post_note(author, note, title="新标题", body="保留的一行\n新的一行\n")
    post_note(author, note, body="保留的一行\n第三次\n")
    history = author.get(reverse("admin:blog_note_history", args=[note.pk]))
    assert history.status_code == 200
    html = history.content.decode()
    first = list(versions_of(note))[-1]
    compare_url = reverse("admin:blog_note_revision", args=[note.pk, first.pk])
    assert compare_url in html and "lin" in html
    compare = author.get(compare_url).content.decode()
    assert '<del class="diff-del">-新的一行</del>' in compare
    assert '<ins class="diff-ins">+第三次</ins>' in compare


def test_restore_is_a_new_revision_and_renders_again(author):
    note = make_draft(title="标题", body="**原来的** 正文\n")
    post_note(author, note, body="**原来的** 正文\n")  # the first revision
    changed = post_note(author, note, body="全部改掉了\n")
    original = list(versions_of(note))[-1]
    before = changed.updated_at
    response = author.post(
        reverse("admin:blog_note_revision", args=[note.pk, original.pk]),
        {"edit_version": version_of(changed)},
    )
    assert response.status_code == 302
    restored = Note.objects.get(pk=note.pk)
    assert restored.body.strip() == "**原来的** 正文"
    assert "<strong>原来的</strong>" in restored.body_html  # rendered again
    assert restored.updated_at > before
    assert len(versions_of(note)) == 3
    assert "Restored" in latest_version(note).revision.get_comment() or "恢复" in (
        latest_version(note).revision.get_comment()
    )


def test_a_restore_from_a_stale_page_is_refused(author):
    note = make_draft(body="一\n")
    post_note(author, note, body="一\n")
    opened = post_note(author, note, body="二\n")
    version = list(versions_of(note))[-1]
    post_note(author, note, body="三，别人刚写的\n")
    author.post(
        reverse("admin:blog_note_revision", args=[note.pk, version.pk]),
        {"edit_version": version_of(opened)},
    )
    assert Note.objects.get(pk=note.pk).body.strip() == "三，别人刚写的"


def test_bulk_actions_record_revisions(author):
    note = make_draft(title="草稿")
    author.post(
        reverse("admin:blog_note_changelist"),
        {"action": "publish_now", "_selected_action": [note.pk]},
    )
    version = latest_version(note)
    assert version is not None and version.field_dict["status"] == Status.PUBLISHED
    assert version.revision.user.username == "lin"


def test_saves_outside_a_revision_block_record_nothing_and_recording_records_them():
    note = make_draft()
    note.render()
    note.save()
    assert not versions_of(note).exists()
    with recording(comment="Imported"):
        note.save()
    assert latest_version(note).revision.get_comment() == "Imported"


def test_pages_keep_revisions_too(author):
    page = make_page(title="关于", slug="about")
    response = author.post(
        reverse("admin:blog_page_change", args=[page.pk]),
        page_form_data(page, title="关于我", body="新的介绍"),
    )
    assert response.status_code == 302
    assert snapshot(page, latest_version(page))["title"] == "关于我"
    assert reversion.is_registered(type(page))
