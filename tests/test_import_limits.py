"""An import is bounded: a Markdown file's size, what YAML aliases expand to, tags per note and
the number of files. Each limit is reported for the file that meets it, at once; the other
files are imported. (Before, a 20 MB file, 304 bytes of aliases expanding to 100,000 tags and
a 4,000-file import each ran until the worker was killed.)"""

import time

import pytest

from blog.models import Note, Tag
from blog.porting.limits import MAX_FILES, MAX_MARKDOWN_BYTES, MAX_TAGS
from blog.porting.run import import_markdown
from tests.imports import site_folder

pytestmark = pytest.mark.django_db

GOOD = "---\ntitle: Good note\ndate: 2025-06-01\n---\n\nImported.\n"

# 304 bytes: each line repeats the one above ten times; ``tags`` stands for 100,000 names.
ALIASES = (
    "---\ntitle: Laughs at five levels of ten aliases\n"
    "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "tags: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n---\n\nBody.\n"
)


def text(report):
    return "\n".join(report.lines())


def test_a_markdown_file_over_the_size_limit_is_refused_at_once(tmp_path):
    folder = site_folder(tmp_path / "site", {"good.md": GOOD})
    (folder / "huge.md").write_text("---\ntitle: Huge\n---\n\n" + "x" * 20 * 1024 * 1024, "utf-8")
    start = time.process_time()  # the work's CPU time, whatever else the machine does
    report = import_markdown([folder])
    assert time.process_time() - start < 2
    assert "huge.md: error: not imported: the file is 20.0 MB: Markdown files over 1 MB are " in (
        text(report)
    )
    assert list(Note.objects.values_list("title", flat=True)) == ["Good note"]
    assert MAX_MARKDOWN_BYTES == 1024 * 1024  # the limit docs/moving.md states


def test_yaml_aliases_expanding_to_100000_tags_are_refused_at_once(tmp_path):
    assert len(ALIASES.encode()) == 304
    folder = site_folder(tmp_path / "site", {"good.md": GOOD, "laughs.md": ALIASES})
    start = time.process_time()  # the work's CPU time, whatever else the machine does
    report = import_markdown([folder])
    assert time.process_time() - start < 2
    assert (
        "laughs.md:2: error: not imported: front matter holds more than 1,000 values "
        "(counting what YAML aliases repeat)" in text(report)
    )
    assert not Tag.objects.exists()
    assert list(Note.objects.values_list("title", flat=True)) == ["Good note"]
    # Aliases within the limit still work.
    folder = site_folder(tmp_path / "small", {
        "p.md": "---\ntitle: Anchors\nx: &t [GPU, CUDA]\ntags: *t\n---\n",
    })  # fmt: skip
    import_markdown([folder])
    note = Note.objects.get(title="Anchors")
    assert sorted(note.tags.values_list("name", flat=True)) == ["CUDA", "GPU"]


def test_a_yaml_alias_that_contains_itself_is_refused(tmp_path):
    folder = site_folder(
        tmp_path / "site", {"loop.md": "---\ntitle: Loop\ntags: &a [x, *a]\n---\n"}
    )
    assert "loop.md:2: error: not imported: front matter holds more than" in text(
        import_markdown([folder])
    )


def test_more_tags_than_a_note_may_have(tmp_path):
    names = ", ".join(f"t{number}" for number in range(MAX_TAGS + 1))
    folder = site_folder(tmp_path / "site", {"p.md": f"---\ntitle: T\ntags: [{names}]\n---\n"})
    assert f"p.md:3: error: not imported: more than {MAX_TAGS} tags" in text(
        import_markdown([folder])
    )
    assert not Tag.objects.exists()


def test_files_past_the_file_limit_are_reported_each_and_not_read(tmp_path):
    """5,000 files without front matter (read and skipped: not notes), then two notes."""
    folder = tmp_path / "site"
    folder.mkdir()
    for number in range(MAX_FILES):
        (folder / f"a{number:05}.md").write_text("A README, not a note.\n", "utf-8")
    (folder / "z1.md").write_text(GOOD, "utf-8")
    (folder / "z2.md").write_text(GOOD, "utf-8")
    report = import_markdown([folder])
    lines = text(report)
    for name in ("z1.md", "z2.md"):
        assert f"{name}: error: not read: an import reads at most 5,000 Markdown files" in lines
    assert not Note.objects.exists()
    assert report.counts == {"skipped": MAX_FILES + 2}
