"""A translation behind its original stays behind through export and import, backup and restore,
and a restored revision: the sync state travels as block hashes (``translation_synced``)."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from blog.models import Language, LegacyPath, NavigationLink, Note, Page, Series, SiteSettings, Tag
from blog.models.revisions import recording, register_models, restore, versions_of
from blog.models.translation_drafts import start_translation
from blog.models.translation_sync import bring_in_line, is_behind, with_behind
from blog.models.translations import link_translation
from blog.ops.demo.loader import load_demo
from blog.porting import frontmatter
from blog.porting.export import export
from blog.porting.formats import FORMATS, HUGO
from blog.porting.report_keys import explain_front_matter
from blog.porting.run import import_markdown
from tests.factories import make_note
from tests.processes import manage

pytestmark = pytest.mark.django_db

ZH_BODY = "## 调度\n\n一个 warp 有 32 个线程。\n\n## 延迟\n\n换一个 warp 来隐藏延迟。\n"
# To the second, as export writes times: importing the export again is then "unchanged".
PUBLISHED = datetime(2025, 6, 1, 2, 15, tzinfo=UTC)
EN_BODY = "## Scheduling\n\nA warp is 32 threads.\n\n## Latency\n\nSwitching warps hides latency.\n"


def behind(slug):
    note = Note.objects.get(slug=slug)
    return is_behind(note, note.counterpart)


def behind_slugs():
    return sorted(
        with_behind(Note.objects.all()).filter(is_behind=True).values_list("slug", flat=True)
    )


@pytest.fixture
def pair():
    """A Chinese note and its English translation, linked (in line both ways), then the
    Chinese text changed: the English note is behind, the Chinese one is not."""
    zh = make_note(title="Warp 调度", slug="warp", body=ZH_BODY, published_at=PUBLISHED)
    en = make_note(
        published_at=PUBLISHED,
        title="Warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        body=EN_BODY,
    )
    link_translation(en, zh)
    zh.refresh_from_db()
    zh.body += "\n## 占用率\n\n占用率不是越高越好。\n"
    zh.save()
    assert behind("warp-en") and not behind("warp")
    return zh, en


def empty_database():
    """Remove what the tests' notes and their import wrote (and nothing else)."""
    for model in (LegacyPath, Note, Page, Series, Tag, NavigationLink, SiteSettings):
        model.objects.all().delete()


def files(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(Path(folder).rglob("*"))
        if path.is_file()
    }


def meta(path):
    return frontmatter.split(Path(path).read_text("utf-8")).meta


@pytest.mark.parametrize("fmt", ["hugo", "hexo", "jekyll"])
def test_a_translation_behind_is_behind_after_export_and_import(pair, fmt, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    export(first, FORMATS[fmt])
    empty_database()
    report = import_markdown([first])
    assert not report.problems, report.lines()
    assert behind("warp-en") and not behind("warp")
    export(second, FORMATS[fmt])
    assert files(first) == files(second)


def test_the_key_holds_the_translation_s_hashes_when_last_in_line(pair, tmp_path):
    zh, en = pair
    alone = make_note(slug="alone")
    export(tmp_path)
    en_meta = meta(tmp_path / "content/posts/warp.en.md")
    zh_meta = meta(tmp_path / "content/posts/warp.md")
    assert en_meta["translation_synced"] == en.synced_hashes.split() != zh.block_hashes.split()
    assert zh_meta["translation_synced"] == en.block_hashes.split()
    assert list(en_meta)[-1] == "translation_synced"  # written last: it is long
    assert "translation_synced" not in meta(tmp_path / f"content/posts/{alone.slug}.md")


def test_an_original_never_compared_stays_so_through_the_round_trip(tmp_path):
    original = make_note(title="Warp 调度", slug="warp", body=ZH_BODY, published_at=PUBLISHED)
    draft = start_translation(original)
    original.refresh_from_db()
    assert original.synced_hashes == "" and draft.synced_hashes == original.block_hashes
    first, second = tmp_path / "first", tmp_path / "second"
    export(first)
    assert meta(first / "content/posts/warp.md")["translation_synced"] == []
    empty_database()
    assert not import_markdown([first]).problems
    original, draft = Note.objects.get(slug="warp"), Note.objects.get(slug=draft.slug)
    # Linking the pair put both in line; the file said the original follows nothing.
    assert original.synced_hashes == "" and draft.synced_hashes == original.block_hashes
    export(second)
    assert files(first) == files(second)


def test_importing_the_export_again_changes_nothing(pair, tmp_path):
    export(tmp_path)
    unchanged = {"content/posts/warp.md": "unchanged", "content/posts/warp.en.md": "unchanged"}
    assert note_outcomes(import_markdown([tmp_path])) == unchanged
    assert behind("warp-en") and not behind("warp")
    empty_database()
    import_markdown([tmp_path])
    assert note_outcomes(import_markdown([tmp_path])) == unchanged
    assert behind("warp-en") and not behind("warp")


def test_the_key_changed_in_the_file_updates_the_note(pair, tmp_path):
    export(tmp_path)
    path = tmp_path / "content/posts/warp.en.md"
    text = path.read_text("utf-8")
    key_line = next(line for line in text.split("\n") if line.startswith("translation_synced:"))
    path.write_text(text.replace(key_line, "translation_synced: []"), "utf-8")
    report = import_markdown([tmp_path])
    assert note_outcomes(report) == {
        "content/posts/warp.md": "unchanged",
        "content/posts/warp.en.md": "updated",
    }
    assert Note.objects.get(slug="warp-en").synced_hashes == "" and not behind("warp-en")


def test_the_original_edited_in_the_exported_files_puts_its_translation_behind(tmp_path):
    zh = make_note(title="Warp 调度", slug="warp", body=ZH_BODY, published_at=PUBLISHED)
    en = make_note(
        published_at=PUBLISHED,
        title="Warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        body=EN_BODY,
    )
    link_translation(en, zh)
    export(tmp_path)
    path = tmp_path / "content/posts/warp.md"
    path.write_text(path.read_text("utf-8") + "\n## 占用率\n\n占用率不是越高越好。\n", "utf-8")
    assert note_outcomes(import_markdown([tmp_path]))["content/posts/warp.md"] == "updated"
    assert behind("warp-en") and not behind("warp")


def note_outcomes(report):
    """What the import did to each note's file (biji's data file left out)."""
    return {o.source: o.action for o in report.outcomes if o.source.startswith("content/")}


def write_post(folder, name, body=EN_BODY, **front):
    """A Hugo post as another generator (or a person) wrote it."""
    path = folder / "content/posts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(frontmatter.join(front, body), "utf-8")
    return path


def test_files_without_the_key_form_a_pair_in_line_both_ways(tmp_path):
    write_post(
        tmp_path,
        "warp.md",
        title="Warp 调度",
        lang="zh",
        date=PUBLISHED,
        translationKey="warp",
        body=ZH_BODY,
    )
    write_post(
        tmp_path,
        "warp-en.md",
        title="Warp scheduling",
        lang="en",
        date=PUBLISHED,
        translationKey="warp",
    )
    assert not import_markdown([tmp_path]).problems
    zh, en = Note.objects.get(slug="warp"), Note.objects.get(slug="warp-en")
    assert zh.counterpart == en
    assert zh.synced_hashes == en.block_hashes and en.synced_hashes == zh.block_hashes


@pytest.mark.parametrize(
    "value",
    ["not-a-hash", [12345], ["0123456789abcdeg"], {"hash": "0123456789abcdef"}, True],
    ids=["text", "number", "not-hex", "mapping", "bool"],
)
def test_a_value_that_is_not_hashes_is_ignored_and_reported(value, tmp_path):
    write_post(
        tmp_path,
        "warp.md",
        title="Warp 调度",
        lang="zh",
        date=PUBLISHED,
        translationKey="warp",
        body=ZH_BODY,
    )
    write_post(
        tmp_path,
        "warp-en.md",
        title="Warp scheduling",
        lang="en",
        date=PUBLISHED,
        translationKey="warp",
        translation_synced=value,
    )
    report = import_markdown([tmp_path])
    assert report.counts["created"] == 2 and not report.errors
    warning = "\n".join(report.lines("en"))
    assert "content/posts/warp-en.md:6: warning: translation_synced: " in warning
    assert "is not a list of block hashes: ignored" in warning
    zh, en = Note.objects.get(slug="warp"), Note.objects.get(slug="warp-en")
    assert en.synced_hashes == zh.block_hashes  # what linking gives


def test_the_admin_s_report_says_how_the_key_was_read(pair, tmp_path):
    export(tmp_path)
    report = import_markdown([tmp_path])
    explain_front_matter(report, tmp_path)
    with translation.override("en"):
        readings = [str(line) for line in report.readings["content/posts/warp.en.md"]]
    assert (
        "translation sync state: the hashes of its translation's 4 blocks when last brought in "
        "line (from “translation_synced”)"
    ) in readings


def test_the_demo_round_trip_keeps_which_notes_are_behind(tmp_path, settings):
    load_demo()
    note = Note.objects.get(slug="cuda-warp-scheduling")
    note.body += "\n补充一段：Hopper 的 warp 调度。\n"
    note.save()
    before = behind_slugs()
    assert "cuda-warp-scheduling-en" in before
    first, second = tmp_path / "first", tmp_path / "second"
    export(first, HUGO)
    empty_database()
    report = import_markdown([first])
    assert not report.errors, report.lines()
    assert behind_slugs() == before
    export(second, HUGO)
    assert files(first) == files(second)


def test_restoring_a_revision_brings_back_its_sync_state(pair):
    zh, en = pair
    register_models()
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    with recording(user, "before the Chinese edit was translated"):
        en.save()
    with recording(user, "brought in line"):
        bring_in_line(en, Note.objects.get(pk=zh.pk))
    assert not behind("warp-en")
    old = list(versions_of(en))[-1]
    restore(Note.objects.get(pk=en.pk), old, user)
    assert behind("warp-en")
    assert Note.objects.get(pk=en.pk).synced_hashes == old.field_dict["synced_hashes"]


# Demo content, and one note's text changed after its translation: that translation is behind.
STATE = """
from blog.models import Note
from blog.models.translation_sync import with_behind
for note in with_behind(Note.objects.order_by("slug")):
    print(note.slug, note.is_behind, note.synced_hashes, note.block_hashes,
          note.text_changed_at.isoformat(), len(note.parallel_blocks))
"""


@pytest.mark.slow
def test_a_note_behind_before_a_backup_is_behind_after_the_restore(backed_up_demo):
    """The demo's round trip (tests/backed_up_demo.py) edits the original of its pair first."""
    before = manage(backed_up_demo.source, "shell", "-c", STATE)
    assert "cuda-warp-scheduling-en True " in before
    assert manage(backed_up_demo.target, "shell", "-c", STATE) == before
