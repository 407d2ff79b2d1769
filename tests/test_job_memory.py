"""Long jobs hold what their current step needs, not what they did before: memory flat in the
number of notes (docs/performance.md, "Growing to 100,000 notes")."""

import gc

import pytest
from django.db import connection, transaction

from blog.models import Note, Term
from blog.ops.backup import accounts, portable, rerender
from blog.porting import importer
from blog.porting.run import import_markdown
from blog.search import index
from tests.factories import make_note, make_tag
from tests.imports import site_folder

pytestmark = pytest.mark.django_db


def test_between_batches_a_restore_holds_no_note_and_no_more_callbacks(monkeypatch):
    Term.objects.create(english="warp", chinese="线程束", definition_zh="32 个线程。")
    for _ in range(12):
        make_note(body="一个 warp 有 32 个线程。\n")
    monkeypatch.setattr(rerender, "BATCH", 4)
    held = []

    def progress(model, done, total):
        if model is Note:
            # Without collecting first: a note left to the cyclic collector counts here.
            alive = sum(1 for obj in gc.get_objects() if isinstance(obj, Note))
            held.append((done, alive, len(connection.run_on_commit)))

    with transaction.atomic(), index.rebuilt_afterwards():
        rendered, refused = rerender.render_all("default", progress)
    assert rendered[Note] == 12 and refused == []
    assert [done for done, _, _ in held] == [4, 8, 12]
    # The last note rendered is the loop's own variable; no batch stays behind.
    assert all(alive <= 1 for _, alive, _ in held), held
    # One registration per run-once callback, not a few more per note rendered.
    assert held[0][2] == held[-1][2], held


def test_a_restore_leaves_the_index_to_its_rebuild(django_capture_on_commit_callbacks):
    note = make_note()
    with django_capture_on_commit_callbacks() as callbacks:
        with transaction.atomic(), index.rebuilt_afterwards():
            note.render()
    assert not [c for c in callbacks if getattr(c, "args", (None,))[0] is index.reindex_notes]
    with django_capture_on_commit_callbacks() as callbacks:
        note.render()
    assert [c for c in callbacks if getattr(c, "args", (None,))[0] is index.reindex_notes]


def test_an_import_keeps_no_note_it_has_stored(tmp_path, monkeypatch):
    """A run of 5,000 files kept every note it stored, texts and all, to pair translations:
    ~300 MB at the limit."""
    files = {}
    for n in range(4):
        front = f"translationKey: pair-{n}\ndate: 2025-01-0{n + 1}T08:00:00+08:00\n"
        files[f"content/posts/p{n}.md"] = f"---\ntitle: 调度 {n}\n{front}---\n正文 {n}。\n"
        files[f"content/posts/p{n}.en.md"] = f"---\ntitle: Scheduling {n}\n{front}---\nText {n}.\n"
    store, held = importer.Importer.store, []

    def store_and_count(self, *args, **kwargs):
        result = store(self, *args, **kwargs)
        gc.collect()
        held.append(sum(1 for obj in gc.get_objects() if isinstance(obj, Note)))
        return result

    monkeypatch.setattr(importer.Importer, "store", store_and_count)
    report = import_markdown([site_folder(tmp_path, files)])
    assert not report.errors
    assert Note.objects.filter(translation__isnull=False).count() == 4  # paired all the same
    assert len(held) == 8 and max(held) <= 2, held  # the file's note and its partner


def test_loading_a_dump_leaves_one_callback_per_kind_not_one_per_row(tmp_path, monkeypatch):
    tag = make_tag("CUDA", "CUDA")
    for _ in range(12):
        make_note(tags=[tag])
    path = tmp_path / "data.json"
    with open(path, "w", encoding="utf-8") as stream:
        portable.dump(stream, "default")
    monkeypatch.setattr(portable, "COMPACT_EVERY", 5)
    with transaction.atomic(), index.rebuilt_afterwards():
        plan = accounts.admit(path, "default", with_accounts=True)
        before = len(connection.run_on_commit)
        portable.load(path, "default", plan=plan, replace=True, keep=accounts.account_labels())
        waiting = connection.run_on_commit[before:]
    assert Note.objects.count() == 12
    kinds = [type(func).__name__ for _, func, _ in waiting]
    assert len(kinds) == len(set(kinds)), kinds
