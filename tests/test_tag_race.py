"""Concurrent saves adding the same new tag all succeed, and make one tag (PostgreSQL).

Eight threads, each with its own connection, tag their own note five times; every round all
threads add the same two new names (English and Chinese) at the same moment, each save in a
transaction as the admin's is. SQLite serialises writers, so the race only exists on
PostgreSQL.
"""

import threading
import traceback

import pytest
from django.db import connection, transaction
from django.db.models import Q

from blog.models import Note, Tag
from blog.models.taxonomy import set_tags
from tests.factories import make_note

THREADS = 8
ROUNDS = 5


@pytest.mark.django_db(transaction=True)
def test_concurrent_saves_adding_the_same_new_tag():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers: there is no race to lose (run on PostgreSQL)")
    notes = [make_note(slug=f"race-{i}") for i in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    errors, done = [], []

    def author(note):
        try:
            for round_ in range(ROUNDS):
                names = [f"Race {round_}", f"竞争{round_}", "Shared"]
                barrier.wait(timeout=30)
                with transaction.atomic():
                    note = Note.objects.select_for_update().get(pk=note.pk)
                    set_tags(note, Tag.objects.resolve(names))
                    note.save()
                done.append(note.pk)
        except Exception:  # noqa: BLE001 (reported below, with its thread)
            errors.append(traceback.format_exc())
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=author, args=(note,)) for note in notes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert len(done) == THREADS * ROUNDS
    for round_ in range(ROUNDS):
        for name in (f"Race {round_}", f"竞争{round_}"):
            assert Tag.objects.filter(Q(name__iexact=name) | Q(name_zh=name)).count() == 1, name
    assert Tag.objects.filter(name="Shared").count() == 1
    assert Tag.objects.count() == 2 * ROUNDS + 1
    last = {
        tag.pk for tag in Tag.objects.resolve([f"Race {ROUNDS - 1}", f"竞争{ROUNDS - 1}", "Shared"])
    }
    for note in notes:
        assert {tag.pk for tag in Note.objects.get(pk=note.pk).tags.all()} == last
