"""Migrations agree with the models, and each one runs the same way whatever the code beside
it becomes: it imports nothing of biji's but validators and field classes, and what it
computes is a frozen copy (blog/migrations/0012, 0014)."""

import ast
import importlib
from datetime import timedelta
from io import StringIO
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from blog.models import Note
from blog.text.blocks import block_hashes
from tests.factories import make_note

MIGRATIONS = sorted((Path(__file__).parent.parent / "blog" / "migrations").glob("0*.py"))
DEMO_NOTES = sorted((Path(__file__).parent.parent / "blog" / "ops" / "demo" / "notes").glob("*.md"))
# What a migration may import from blog/: what its fields are made of, never what computes.
IMPORTABLE = {"blog.text.validators"}


@pytest.mark.django_db
def test_models_and_migrations_agree():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.backend_independent
@pytest.mark.parametrize("path", MIGRATIONS, ids=lambda path: path.stem)
def test_a_migration_imports_no_live_code(path):
    """A later change to biji's code must not rewrite what a migration did."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            modules = ["." * node.level + (node.module or "")]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            assert module in IMPORTABLE or not module.startswith((".", "blog")), (
                f"{path.name} imports {module}"
            )


def test_there_are_migrations_and_demo_notes_to_read():
    assert len(MIGRATIONS) >= 19 and len(DEMO_NOTES) >= 10


# --- 0014: the frozen block hashing ------------------------------------------------------------

translation_sync = importlib.import_module("blog.migrations.0014_translation_sync")

# Each rule of blog/text/blocks.py's splitting and normalising, at its edges.
EDGE_CASES = {
    "empty": "",
    "blank lines only": "\n\n  \n",
    "CRLF and CR": "# 标题\r\n\r\n第一段\r第二行\r\n",
    "heading without a space": "#标题\n  # not a heading\n",
    "setext headings": "Title\n=====\n\nSub\n---\n",
    "unclosed fence": "```python\nx = 1\n\ny = 2\n",
    "tilde fence, longer closer": "~~~~\ncode  \n~~~~~\n",
    "indented code over blank lines": "text\n\n    a = 1\n\n    b = 2\n\nafter\n",
    "code in a list item": "1. run:\n\n   ```bash\n   nvcc -o x x.cu\n     ./x\n   ```\n2. done\n",
    "code in a quote": "> ```python\n> if x:\n>     y\n> ```\n",
    "code in an admonition": '!!! note "注意"\n    ```c\n    int x;\n    ```\n\n    正文。\n',
    "display math": "$$\n\\sum_i x_i\n$$\n\n\\[\na^2\n\\]\n",
    "math in running text": "$$x$$ 是公式\n\n$$\nnever closed\n",
    "table": "| 名字 | 值 |\n|:-----|---:|\n| warp | 32 |\n",
    "lists, lazy and loose": "- 一\n\n- 二\n继续\n* 三\n\n10) 十\n",
    "rules": "---\n\n* * *\n\n___\n",
    "footnotes": "正文[^1]。\n\n[^1]: 定义，\n跨两行。\n[^2]: 第二个。\n",
    "raw HTML": "<div>\n<div>内</div>\n\n段\n</div>\n\n<!-- 注释\n\n多行 -->\n\n<kbd>Ctrl</kbd>\n",
    "HTML never closed": "<details>\n<summary>x</summary>\n",
    "TOC": "[TOC]\n\n正文\n",
    "whitespace between scripts": "GPU 上的 kernel  调度\n由 warp scheduler 完成。  \n",
    "trailing spaces in code": "```\nx   \n\ty\n```\n",
}


@pytest.mark.backend_independent
@pytest.mark.parametrize("text", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_the_frozen_hashing_gives_the_hashes_of_blog_text_blocks(text):
    assert translation_sync.block_hashes(text) == block_hashes(text)


@pytest.mark.backend_independent
@pytest.mark.parametrize("path", DEMO_NOTES, ids=lambda path: path.stem)
def test_the_frozen_hashing_gives_the_hashes_of_blog_text_blocks_on_the_demo(path):
    text = path.read_text(encoding="utf-8")
    assert translation_sync.block_hashes(text) == block_hashes(text)


@pytest.mark.django_db
def test_0014_hashes_every_note_and_puts_pairs_in_line_leaving_their_blocks_to_rerender():
    original = make_note(slug="o", body="# 调度\n\n正文。\n")
    translation = make_note(slug="t", language="en", body="# Scheduling\n\nText.\n")
    alone = make_note(slug="a", body="只有一段。\n")
    rows = Note.objects.filter(pk__in=[original.pk, translation.pk, alone.pk])
    rows.update(block_hashes="", synced_hashes="", text_changed_at=None, parallel_blocks=[])
    rows.filter(pk=translation.pk).update(translation=original)  # as before 0014
    translation_sync.hash_and_pair(apps, SimpleNamespace(connection=connection))
    original, translation, alone = (
        Note.objects.get(pk=n.pk) for n in (original, translation, alone)
    )
    for note in (original, translation, alone):
        assert note.block_hashes == " ".join(block_hashes(note.body))
        assert note.text_changed_at == note.updated_at
        assert note.parallel_blocks == []  # manage.py rerender renders them
    assert original.synced_hashes == translation.block_hashes
    assert translation.synced_hashes == original.block_hashes
    assert alone.synced_hashes == ""


# The migration that keys each engine's existing search documents, and the step doing it.
KEYING = {
    "sqlite": ("0023_search_order_key", lambda migration: migration._rekey("order_key")),
    "postgresql": ("0024_search_order_key_postgres", lambda migration: migration.add_keys),
}


@pytest.mark.django_db
def test_existing_search_documents_are_keyed_as_the_index_keys_them():
    from datetime import UTC, datetime

    from blog.models import SearchDocument, Status
    from blog.search.index import reindex_notes
    from blog.search.order import order_key

    notes = [
        make_note(slug="published"),
        make_note(slug="scheduled", published_ago=-timedelta(days=3)),
        make_note(slug="draft", status=Status.DRAFT, published_ago=None),
        make_note(slug="ancient", published_at=datetime(1, 1, 1, tzinfo=UTC)),
        make_note(slug="far", published_at=datetime(9999, 12, 31, tzinfo=UTC)),
    ]
    reindex_notes([note.pk for note in notes])  # after the commit, outside a test's transaction
    documents = SearchDocument.objects.filter(note__in=notes)
    documents.update(order_key=None)
    name, step = KEYING[connection.vendor]
    migration = importlib.import_module(f"blog.migrations.{name}")
    with connection.cursor() as cursor:
        editor = SimpleNamespace(connection=connection, execute=lambda sql: cursor.execute(sql, ()))
        step(migration)(apps, editor)
    keys = dict(documents.values_list("note_id", "order_key"))
    for note in notes:
        published = note.status == Status.PUBLISHED
        assert keys[note.pk] == order_key(note.pk, note.published_at, published), note.slug
