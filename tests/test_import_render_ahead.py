"""An import renders each file before the file's write transaction opens: a text the renderer
refuses is reported with the reason and skipped, quickly, the others imported; no render
(a note's, its translation's blocks) runs while a transaction holds the write lock."""

import io
import time

import pytest
from django.db import connection
from PIL import Image

from blog.models import ImageFile, ImportedMedia, Note
from blog.porting.run import import_markdown
from blog.rendering import budget
from tests.imports import site_folder

RENDER_SECONDS = 0.2


def png():
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (40, 120, 200)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture(autouse=True)
def _fresh_memo():
    budget.forget()
    yield
    budget.forget()


def note_file(title, body, **front):
    lines = [f"title: {title}", "date: 2024-01-01T00:00:00Z"]
    lines += [f"{key}: {value}" for key, value in front.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


@pytest.mark.django_db
def test_a_text_the_renderer_refuses_is_reported_and_the_other_files_imported(tmp_path, settings):
    settings.BIJI_RENDER_SECONDS = RENDER_SECONDS
    site = site_folder(
        tmp_path / "site",
        {
            "content/posts/brackets.md": note_file("Brackets", "[" * 60_000),
            "content/posts/warps.md": note_file("Warps", "Warps are *scheduled* in groups.\n"),
        },
    )
    started = time.monotonic()
    report = import_markdown([site])
    took = time.monotonic() - started

    english = "\n".join(report.lines())
    assert (
        "content/posts/brackets.md: error: not imported: The text could not be rendered within "
        f"{RENDER_SECONDS:g} s, the limit for one text." in english
    )
    assert "content/posts/brackets.md: skipped: error" in english
    assert "1 created, 0 updated, 0 unchanged, 1 skipped; 1 errors" in english
    assert "正文未能在 0.2 秒" in "\n".join(report.lines("zh-hans"))  # the report's language
    assert list(Note.objects.values_list("title", flat=True)) == ["Warps"]
    assert took < 15, f"the refused text held the import {took:.1f} s"


@pytest.mark.django_db(transaction=True)
def test_no_render_runs_inside_a_write_transaction(tmp_path, monkeypatch):
    """Every render the import does (the notes' bodies, their blocks once they are a pair,
    an image shown as a <picture>) happens with no transaction open."""
    in_transaction = []
    run = budget._run

    def watched(func, args):
        in_transaction.append(connection.in_atomic_block)
        return run(func, args)

    monkeypatch.setattr(budget, "_run", watched)
    site = site_folder(
        tmp_path / "site",
        {
            "content/posts/warps.md": note_file(
                "Warps", "# Warps\n\nScheduled in groups.\n\n![a warp](warp.png)\n",
                translation_key="warps", language="en",
            ),
            "content/posts/warps.zh.md": note_file(
                "线程束", "# 线程束\n\n成组调度。\n", translation_key="warps", language="zh"
            ),
        },
    )  # fmt: skip
    (site / "content/posts/warp.png").write_bytes(png())

    report = import_markdown([site])

    assert "2 created" in report.lines()[-1], report.lines()
    english, chinese = Note.objects.get(language="en"), Note.objects.get(language="zh-hans")
    assert english.counterpart == chinese
    assert english.parallel_blocks and chinese.parallel_blocks  # a pair's blocks, rendered
    assert "<picture" in english.body_html or "<img" in english.body_html
    [stored] = ImportedMedia.objects.values_list("name", flat=True)
    assert ImageFile.objects.filter(name=stored).exists()  # registered in the file's transaction
    assert in_transaction and not any(in_transaction), in_transaction
