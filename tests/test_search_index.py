"""The search index follows every save, delete and tag change after commit, and can be rebuilt."""

import logging
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from blog.models import Note
from blog.models.search_document import SearchDocument
from blog.search import index
from blog.search.query import ranked_ids
from blog.search.text import parse_query
from tests.factories import make_note, make_tag

pytestmark = pytest.mark.django_db


def found(q):
    """Slugs of the published notes the search finds, sorted."""
    notes = Note.objects.filter(pk__in=ranked_ids(parse_query(q)))
    return sorted(notes.values_list("slug", flat=True))


def indexed_ids():
    return list(SearchDocument.objects.order_by("note_id").values_list("note_id", flat=True))


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """A block whose on-commit callbacks run at its end, as after a real commit."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_a_saved_note_is_indexed_after_commit_only(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        note = make_note(slug="n", body="算子融合")
        assert found("算子") == []  # not before the commit
    assert found("算子") == []  # a rolled-back transaction would leave the index alone
    assert callbacks
    for callback in callbacks:
        callback()
    assert found("算子") == ["n"]
    assert indexed_ids() == [note.pk]


def test_an_edit_replaces_what_is_indexed(committed):
    with committed():
        note = make_note(slug="n", title="Old title", body="调度")
    with committed():
        note.title = "新标题 cuBLAS"
        note.body = "算子"
        note.save()
    assert found("old title") == [] and found("调度") == []
    assert found("新标题") == found("cublas") == found("算子") == ["n"]


def test_a_deleted_note_leaves_the_index(committed):
    with committed():
        note = make_note(slug="n", body="调度")
        make_note(slug="kept", body="调度")
    with committed():
        note.delete()
    assert found("调度") == ["kept"]
    assert len(indexed_ids()) == 1


def test_adding_removing_and_clearing_tags(committed):
    quantization = make_tag(name="Quantization", name_zh="量化")
    with committed():
        note = make_note(slug="n", title="Note", body="Nothing.")
    with committed():
        note.tags.add(quantization, "Sparsity")
    assert found("量化") == found("quantization") == found("sparsity") == ["n"]
    with committed():
        note.tags.remove(quantization)
    assert found("量化") == [] and found("sparsity") == ["n"]
    with committed():
        note.tags.set(["Pruning"])
    assert found("sparsity") == [] and found("pruning") == ["n"]
    with committed():
        note.tags.clear()
    assert found("pruning") == []


def test_renaming_a_tag_reindexes_its_notes(committed):
    tag = make_tag(name="Quantisation", name_zh="量化")
    with committed():
        make_note(slug="n", title="Note", body="Nothing.", tags=[tag])
        make_note(slug="untagged", title="Note", body="Nothing.")
    with committed():
        tag.name, tag.name_zh = "Quantization", "低比特量化"
        tag.save()
    assert found("quantisation") == []
    assert found("quantization") == found("低比特") == ["n"]


def test_deleting_a_tag_reindexes_its_notes(committed):
    tag = make_tag(name="Quantization", name_zh="量化")
    with committed():
        make_note(slug="n", title="Note", body="Nothing.", tags=[tag])
    with committed():
        tag.delete()
    assert found("量化") == [] and found("quantization") == []


def test_a_failing_index_never_fails_the_save(committed, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("index unavailable")

    monkeypatch.setattr(index, "reindex_notes", broken)
    with caplog.at_level(logging.ERROR), committed():
        note = make_note(slug="n", body="调度")
    assert Note.objects.filter(pk=note.pk).exists()
    assert "index unavailable" in caplog.text


def test_bulk_changes_are_indexed_by_the_rebuild_command(committed):
    with committed():
        note = make_note(slug="n", title="Old", body="调度")
    Note.objects.filter(pk=note.pk).update(title="Renamed cuBLAS")  # no signals
    assert found("cublas") == []
    call_command("rebuild_search_index", stdout=StringIO())
    assert found("cublas") == ["n"]


def wipe_side_table():
    SearchDocument.objects.all().delete()


def wipe_fts_only():
    """On SQLite: the FTS index emptied behind the side table's back (a damaged index)."""
    with connection.cursor() as cursor:
        for table in ("blog_search_fts", "blog_search_head", "blog_search_grams"):
            cursor.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")  # noqa: S608


@pytest.mark.parametrize("wipe", [wipe_side_table, wipe_fts_only])
def test_the_rebuild_command_restores_a_wiped_index(committed, wipe, capsys):
    if wipe is wipe_fts_only and connection.vendor != "sqlite":
        pytest.skip("PostgreSQL's indexes live inside the side table")
    with committed():
        drafted = make_note(slug="draft", body="调度 cuBLAS", status="draft", published_ago=None)
        make_note(slug="a", title="调度", body="cuBLAS", tags=[make_tag()])
        make_note(slug="b", title="Other", body="调度 cuBLAS")
    wipe()
    assert found("调度") == [] and found("cublas") == []
    call_command("rebuild_search_index")
    assert "Indexed 3 notes" in capsys.readouterr().out
    assert found("调度") == found("cublas") == ["a", "b"]
    assert found("scheduling") == ["a"]  # its tag's English name
    assert drafted.pk in indexed_ids()  # drafts are indexed; the published rule applies later
    with committed():  # the triggers and indexes work on after a rebuild
        Note.objects.get(slug="b").delete()
    assert found("调度") == ["a"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_the_migration_indexes_the_notes_that_exist():
    call_command("migrate", "blog", "0001", verbosity=0)
    try:
        assert SearchDocument._meta.db_table not in connection.introspection.table_names()
        # The models as they were at 0001 (today's have columns that table does not), and
        # bulk_create: no signals, as for notes written before the search existed.
        then = MigrationExecutor(connection).loader.project_state(("blog", "0001_initial")).apps
        old = then.get_model("blog", "Note")(
            title="旧笔记", slug="old", status="published", plain_text="算子 cuBLAS"
        )
        old.published_at = timezone.now()
        [note] = then.get_model("blog", "Note").objects.bulk_create([old])
        tag = then.get_model("blog", "Tag").objects.create(
            name="Quantization", name_zh="量化", slug="quantization"
        )
        then.get_model("blog", "TaggedNote").objects.create(
            content_object_id=note.pk, tag_id=tag.pk
        )
        call_command("migrate", "blog", verbosity=0)
        assert found("算子") == found("cublas") == found("量化") == found("旧笔记") == ["old"]
    finally:
        call_command("migrate", "blog", verbosity=0)
        wipe_side_table()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's session and storage")
def test_postgresql_searches_without_jit_and_keeps_documents_uncompressed(committed):
    """A common word is a costly plan: JIT compiling it cost more than running it, and each
    compressed document was decompressed to be read (docs/performance.md)."""
    with committed():
        make_note(slug="long", body="调度 warp scheduler. " * 400)  # ~8 KB: it would be compressed
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"
        cursor.execute(
            "SELECT pg_column_compression(text), pg_column_compression(grams), length(text) "
            "FROM blog_searchdocument JOIN blog_note ON blog_note.id = note_id WHERE slug = 'long'"
        )
        text_compression, grams_compression, length = cursor.fetchone()
    assert length > 4000 and text_compression is None and grams_compression is None
