"""A restore renders every note again inside its one transaction: what it holds between batches
is one batch's worth, whatever the number of notes (docs/performance.md, "Restore")."""

import gc

import pytest
from django.db import connection, transaction

from blog.models import Note, Term
from blog.ops.backup import rerender
from blog.search import index
from tests.factories import make_note

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
