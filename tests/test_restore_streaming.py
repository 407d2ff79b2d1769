"""A restore reads the backup's dump one row at a time (blog/ops/backup/dump_reader.py), so its
memory does not grow with the site: what it reads is what the backup wrote, and the rows that
point at a staff account left out go as their ``on_delete`` says, decided while reading.

The whole restore (``manage.py restore`` in its own process) is test_backup_restore.py's and
test_restore_hostile.py's; these load a dump into the test database, in-process.
"""

import json
from pathlib import Path

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone
from reversion.models import Revision

from blog.models import ImportRun, Note
from blog.ops.backup import accounts, dump_reader, portable
from tests.factories import make_note, make_tag

pytestmark = pytest.mark.django_db


def write_dump(path: Path) -> dict:
    """The dump of the test database at ``path``; returns it decoded whole, as the restore
    did before it read a row at a time."""
    with open(path, "w", encoding="utf-8") as stream:
        portable.dump(stream, "default")
    return json.loads(path.read_text("utf-8"))


def test_the_reader_gives_back_every_row_the_dump_wrote(tmp_path):
    make_note(
        title="线程束 warp 调度",
        body='## 同步\n\n`__syncwarp()` 与 "quotes" \\ 和 $x^2$\n\n```c\nint a = 1;\n```',
        tags=[make_tag("Scheduling", "调度")],
    )
    whole = write_dump(tmp_path / "data.json")
    with open(tmp_path / "data.json", "rb") as stream:
        read = [
            {"model": entry.model, "fields": entry.fields, "rows": list(entry.rows)}
            for entry in dump_reader.entries(stream)
        ]
    assert dump_reader.dump_format(tmp_path / "data.json") == portable.FORMAT
    assert read == whole["models"]
    assert any(entry["model"] == "blog.note" and entry["rows"] for entry in read)


def seed_accounts():
    """An editor (staff) and a reader (no admin rights), each with an admin log entry, an
    import and a revision to their name."""
    users = get_user_model().objects
    editor = users.create_user("editor", password="pw-for-tests-only", is_staff=True)
    reader = users.create_user("reader", password="pw-for-tests-only")
    note_type = ContentType.objects.get_for_model(Note)
    for user in (editor, reader):
        LogEntry.objects.create(
            user=user, content_type=note_type, object_id="1", object_repr=user.username,
            action_flag=ADDITION,
        )  # fmt: skip
        ImportRun.objects.create(user=user, archive_name=f"{user.username}.zip", format="hugo")
        Revision.objects.create(user=user, comment=user.username, date_created=timezone.now())


def restore_into_this_database(path, *, with_accounts):
    """Empty the tables the dump fills, then load it as ``manage.py restore`` does."""
    for model in (LogEntry, ImportRun, Revision, get_user_model()):
        model.objects.all().delete()
    plan = accounts.admit(path, "default", with_accounts=with_accounts)
    portable.load(path, "default", plan=plan, replace=True, keep=accounts.account_labels())
    return plan


def test_what_pointed_at_a_staff_account_left_out_goes_as_its_on_delete_says(tmp_path):
    seed_accounts()
    write_dump(tmp_path / "data.json")
    plan = restore_into_this_database(tmp_path / "data.json", with_accounts=False)
    assert plan.admitted.left_out == [("editor", False)]
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["reader"]
    # The editor's log entry goes with the account (CASCADE); the reader's stays, theirs.
    assert [(e.object_repr, e.user.username) for e in LogEntry.objects.all()] == [
        ("reader", "reader")
    ]
    # Imports and revisions lose their author (SET_NULL) and stay.
    runs = {run.archive_name: run.user for run in ImportRun.objects.select_related("user")}
    assert runs["editor.zip"] is None and runs["reader.zip"].username == "reader"
    revisions = {revision.comment: revision.user for revision in Revision.objects.all()}
    assert revisions["editor"] is None and revisions["reader"].username == "reader"


def test_with_accounts_everything_comes_back_as_it_was(tmp_path):
    seed_accounts()
    write_dump(tmp_path / "data.json")
    restore_into_this_database(tmp_path / "data.json", with_accounts=True)
    assert sorted(LogEntry.objects.values_list("object_repr", "user__username")) == [
        ("editor", "editor"),
        ("reader", "reader"),
    ]
    assert sorted(ImportRun.objects.values_list("archive_name", "user__username")) == [
        ("editor.zip", "editor"),
        ("reader.zip", "reader"),
    ]
