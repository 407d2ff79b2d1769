"""A dry run holds no write lock: an author's save succeeds at once while one runs.

On SQLite the dry run runs in a child process on a copy of the database (blog/porting/
dry_run.py); its report is the one a dry run in a transaction gives, in every language, and
the copy is deleted. On PostgreSQL it stays one transaction rolled back: a writer of other
rows does not wait for it (the first test runs there too).
"""

import re
import threading
import time

import pytest
from django.db import connection, transaction

from blog.models import Note
from blog.porting.run import import_markdown
from tests.imports import site_folder
from tests.samples import copy_sample

FILES = 21  # a progress bar is drawn from 20 files on


def many_notes(root):
    return site_folder(
        root,
        {
            f"content/posts/note-{n:02d}.md": (
                f"---\ntitle: Note {n}\ndate: 2024-01-{n + 1:02d}T00:00:00Z\ntags: [GPU]\n---\n"
                f"Warps and *schedulers*, part {n}.\n"
            )
            for n in range(FILES)
        },
    )


def author_saves():
    """An author's save on another connection: the seconds it took, or its error."""
    outcome = []

    def save():
        try:
            if connection.vendor == "postgresql":  # never wait long for a lock
                with connection.cursor() as cursor:
                    cursor.execute("SET lock_timeout = '5s'")
            started = time.monotonic()
            Note.objects.create(title="Written meanwhile", slug="written-meanwhile", body="Hi.")
            outcome.append(time.monotonic() - started)
        except Exception as error:
            outcome.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=save)
    thread.start()
    thread.join(60)
    return outcome[0] if outcome else TimeoutError("the save did not end")


class SaveDuringTheRun:
    """A progress stream that, when the first file is done, has the author save."""

    def __init__(self):
        self.saved = None
        self.total = None

    def isatty(self):
        return True

    def write(self, text):
        if (drawn := re.search(r"\] (\d+)/(\d+) ", text)) and self.saved is None:
            self.saved, self.total = author_saves(), int(drawn[2])

    def flush(self):
        pass


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_author_saves_at_once_while_a_dry_run_runs(tmp_path):
    during = SaveDuringTheRun()
    report = import_markdown([many_notes(tmp_path / "site")], dry_run=True, progress_stream=during)

    assert isinstance(during.saved, float), during.saved  # not "database is locked"
    assert during.saved < 2 and during.total == FILES
    assert report.lines()[-1].startswith(f"Dry run, nothing written: {FILES} created")
    assert list(Note.objects.values_list("slug", flat=True)) == ["written-meanwhile"]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_dry_run_on_a_copy_reports_what_a_dry_run_in_a_transaction_does(tmp_path, settings):
    """The same report, line for line and in each language, and the copy gone after."""
    if connection.vendor != "sqlite":
        pytest.skip("a dry run runs on a copy of the database on SQLite only")
    hugo = copy_sample("hugo", tmp_path / "hugo")
    import_markdown([hugo])  # notes to come out unchanged or updated
    post = next(hugo.rglob("warp-scheduling/index.md"))
    post.write_text(post.read_text() + "\nOne more paragraph.\n")
    folders = [hugo, copy_sample("jekyll", tmp_path / "jekyll")]

    on_a_copy = import_markdown(folders, dry_run=True)
    with transaction.atomic():  # a transaction open already: the dry run runs in it
        in_the_transaction = import_markdown(folders, dry_run=True)

    for language in (None, "en", "zh-hans"):
        assert on_a_copy.lines(language) == in_the_transaction.lines(language)
    assert "would be updated" in "\n".join(on_a_copy.lines())
    assert "would be unchanged" in "\n".join(on_a_copy.lines())
    assert not any(settings.BIJI_PRIVATE_ROOT.joinpath("dry-runs").iterdir())
