"""What a restore takes from a backup, in process: the dump read a row at a time, which accounts
it lets in and under which keys, and that every stored HTML of the dump is one it renders
again.

The restore itself, run as the operator runs it, is in test_restore_hostile.py.
"""

import json

from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone
from reversion.models import Revision

from blog.models import Note
from blog.ops.backup import accounts, dump_reader, portable, rerender
from tests.factories import make_note, make_tag

User = get_user_model()


def logged(user):
    return LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(Note),
        object_id="1",
        object_repr=f"by {user.username}",
        action_flag=ADDITION,
    )


def backup_of_three_accounts(folder):
    """The dump (its path) of a site with a superuser, a staff account and one without rights
    (both in a group), each with an admin log entry and a revision; then the site emptied of
    them."""
    author = User.objects.create_user("author", is_staff=True, is_superuser=True)
    intruder = User.objects.create_user("intruder", is_staff=True)
    reader = User.objects.create_user("reader")
    editors = Group.objects.create(name="editors")
    editors.permissions.add(Permission.objects.get(codename="change_note"))
    intruder.groups.add(editors)
    reader.groups.add(editors)
    for user in (author, intruder, reader):
        logged(user)
        Revision.objects.create(user=user, date_created=timezone.now(), comment=user.username)
    path = folder / "data.json"
    with open(path, "w", encoding="utf-8") as stream:
        portable.dump(stream, "default")
    User.objects.all().delete()
    Group.objects.all().delete()
    return path, reader.pk


def restored(path, *, with_accounts=False):
    plan = accounts.admit(path, "default", with_accounts=with_accounts)
    portable.load(path, "default", plan=plan, replace=True, keep=accounts.account_labels())
    return plan.admitted


def test_the_dump_is_read_back_a_row_at_a_time_as_it_was_written(db, tmp_path):
    """A restore reads the dump a row at a time (blog/ops/backup/dump_reader.py), so that its
    memory does not grow with the site: it reads what ``json.load`` of the whole file gives."""
    make_note(
        title="线程束 warp 调度",
        body='## 同步\n\n`__syncwarp()` 与 "quotes" \\ 和 $x^2$\n\n```c\nint a = 1;\n```',
        tags=[make_tag("Scheduling", "调度")],
    )
    path, _reader_pk = backup_of_three_accounts(tmp_path)
    with open(path, "rb") as stream:
        read = [
            {"model": entry.model, "fields": entry.fields, "rows": list(entry.rows)}
            for entry in dump_reader.entries(stream)
        ]
    assert dump_reader.dump_format(path) == portable.FORMAT
    assert read == json.loads(path.read_text("utf-8"))["models"]
    assert {"blog.note", "auth.user", "admin.logentry"} <= {e["model"] for e in read if e["rows"]}


def test_accounts_are_matched_by_name_and_staff_not_here_left_out(db, tmp_path):
    data, reader_pk = backup_of_three_accounts(tmp_path)
    mine = User.objects.create_user("author", password="made-here", is_staff=True)
    User.objects.create_user("ops", id=reader_pk)  # holds the key the reader had

    admitted = restored(data)

    assert admitted.kept_here == ["author"]
    assert admitted.left_out == [("intruder", False)]
    names = dict(User.objects.values_list("username", "pk"))
    assert sorted(names) == ["author", "ops", "reader"]
    assert names["author"] == mine.pk and names["reader"] not in {reader_pk, mine.pk}
    author = User.objects.get(username="author")
    assert author.check_password("made-here") and not author.is_superuser  # as it is here
    reader = User.objects.get(username="reader")
    assert list(reader.groups.values_list("name", flat=True)) == ["editors"]
    assert Group.objects.get().permissions.get().codename == "change_note"
    # What the left-out account did: its log entries go, its revisions keep no author.
    assert sorted(LogEntry.objects.values_list("object_repr", "user__username")) == [
        ("by author", "author"),
        ("by reader", "reader"),
    ]
    assert sorted(Revision.objects.values_list("comment", "user__username")) == [
        ("author", "author"),
        ("intruder", None),
        ("reader", "reader"),
    ]


def test_with_accounts_the_backups_staff_come_in_as_they_were(db, tmp_path):
    data, _reader_pk = backup_of_three_accounts(tmp_path)

    admitted = restored(data, with_accounts=True)

    assert admitted.left_out == [] and admitted.kept_here == []
    intruder = User.objects.get(username="intruder")
    assert intruder.is_staff and list(intruder.groups.values_list("name", flat=True)) == ["editors"]
    assert LogEntry.objects.filter(user=intruder).count() == 1


def test_every_stored_html_of_a_backup_is_rendered_again_on_restore():
    """Every field of the dump that holds HTML a template prints as it is (``X_html``, the
    blocks side by side) is a derived field the restore renders again from Markdown."""
    rendered_again = {
        (model._meta.label_lower, name)
        for model in rerender.rendered_models()
        for name in model.derived_fields
    }
    html = {
        (model._meta.label_lower, field.name)
        for model in portable.dumped_models()
        for field in model._meta.concrete_fields
        if field.name.endswith("_html") or field.name == "parallel_blocks"
    }
    assert len(html) >= 9
    assert html - rendered_again == set()
    first = rerender.rendered_models()[0]
    assert first._meta.label_lower == "blog.term"  # notes' tooltips carry its definitions
