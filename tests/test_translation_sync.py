"""Which note of a translated pair is behind the other (blog/models/translation_sync.py): only a
change of what the text says puts the other version behind, and the author's choices on
saving keep or bring a note in line."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from blog.models import Language, Note
from blog.models.taxonomy import set_tags
from blog.models.translation_drafts import start_translation
from blog.models.translation_sync import (
    after_edit,
    bring_in_line,
    is_behind,
    is_original_of,
    with_behind,
)
from blog.models.translations import link_translation, save_note
from blog.text.blocks import block_hashes
from tests.factories import make_note, make_tag

pytestmark = pytest.mark.django_db

ORIGINAL = (
    "## 调度\n\nGPU 上的 kernel 调度由 warp scheduler 完成。\n\n```c\nint lane = tid % 32;\n```\n"
)
TRANSLATION = (
    "## Scheduling\n\nOn the GPU, the warp scheduler schedules kernels.\n\n"
    "```c\nint lane = tid % 32;\n```\n"
)


def fresh(note):
    """The note as a new request reads it."""
    return Note.objects.get(pk=note.pk)


def behind(note):
    """Whether ``note`` is behind its translation, asked both ways the site asks it (one note,
    and a list's annotation), which must agree."""
    note = fresh(note)
    one = is_behind(note, note.linked_translation())
    in_a_list = with_behind(Note.objects.filter(pk=note.pk)).get().is_behind
    assert one == in_a_list, f"is_behind says {one}, with_behind says {in_a_list}"
    return one


def edit(note, *, needs_translation=True, in_line=False, **changes):
    """The author saves ``note`` with ``changes`` as the admin's form does, with its boxes."""
    note = fresh(note)
    previous_hashes = note.block_hashes
    for field, value in changes.items():
        setattr(note, field, value)
    save_note(note)
    after_edit(note, previous_hashes, needs_translation=needs_translation, in_line=in_line)
    return fresh(note)


def make_pair(link_on):
    original = make_note(title="调度", slug="scheduling", body=ORIGINAL)
    translation = make_note(
        title="Scheduling", slug="scheduling-en", language=Language.ENGLISH, body=TRANSLATION
    )
    if link_on == "translation":
        link_translation(translation, original)
    else:
        link_translation(original, translation)
    return fresh(original), fresh(translation)


@pytest.fixture(params=["translation", "original"], ids=["link on translation", "link on original"])
def pair(request):
    """A Chinese original and its English translation, linked with link_translation(): the link
    stored on either note (the demo and a started translation store it on the translation,
    the admin's field on whichever note the author edits)."""
    return make_pair(request.param)


# --- A pair in line, and what puts one note behind ---------------------------------------------


def test_a_linked_pair_starts_in_line_both_ways(pair):
    original, translation = pair
    assert original.synced_hashes == translation.block_hashes != ""
    assert translation.synced_hashes == original.block_hashes != ""
    assert not behind(original) and not behind(translation)


def test_the_link_is_read_from_either_note(pair):
    original, translation = pair
    assert fresh(original).linked_translation() == translation
    assert fresh(translation).linked_translation() == original


def test_editing_the_original_s_text_puts_the_translation_behind(pair):
    original, translation = pair
    edit(original, body=ORIGINAL.replace("完成", "负责"))
    assert behind(translation)
    assert not behind(original)  # the translation did not change


def test_every_note_of_a_list_gets_its_own_state(pair):
    original, translation = pair
    single = make_note(body="没有翻译的笔记")
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    states = dict(with_behind(Note.objects.all()).values_list("pk", "is_behind"))
    assert states == {original.pk: False, translation.pk: True, single.pk: False}


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"title": "调度（修订）"}, id="title"),
        pytest.param({"summary": "新的摘要"}, id="summary"),
        pytest.param(
            {"body": ORIGINAL.replace("GPU 上的", "GPU上的").replace("完成。", "完成。  \n\n")},
            id="whitespace outside code",
        ),
        pytest.param({"body": ORIGINAL.replace("\n", "\r\n")}, id="CRLF from a browser"),
    ],
)
def test_what_does_not_change_the_text_puts_nothing_behind(pair, changes):
    original, translation = pair
    edited = edit(original, **changes)
    assert edited.block_hashes == original.block_hashes
    assert edited.text_changed_at == original.text_changed_at
    assert not behind(translation) and not behind(original)


def test_tags_put_nothing_behind(pair):
    original, translation = pair
    set_tags(fresh(original), [make_tag(), make_tag(name="Quantization", name_zh="量化")])
    edit(original, title="调度与量化")
    assert not behind(translation)


def test_a_rerender_puts_nothing_behind(pair):
    """A renderer upgrade is not an edit: render() and ``manage.py rerender`` move no hash."""
    original, translation = pair
    Note.objects.filter(pk__in=[original.pk, translation.pk]).update(
        body_html="<p>stale</p>", parallel_blocks=[]
    )
    fresh(original).render()
    call_command("rerender", stdout=StringIO())
    for note in (original, translation):
        rendered = fresh(note)
        assert "stale" not in rendered.body_html and rendered.parallel_blocks
        assert rendered.block_hashes == note.block_hashes
        assert rendered.text_changed_at == note.text_changed_at
        assert not behind(note)


def test_a_small_fix_keeps_the_other_in_line(pair):
    """An edit that needs no translation (a typo fixed in the original) leaves the
    translation in line."""
    original, translation = pair
    fixed = ORIGINAL.replace("完成", "完 成").replace("kernel", "kernels")
    edited = edit(original, body=fixed, needs_translation=False)
    assert edited.block_hashes != original.block_hashes
    assert not behind(translation)
    assert fresh(translation).synced_hashes == edited.block_hashes


def test_a_small_fix_does_not_bring_an_other_that_was_behind_in_line(pair):
    original, translation = pair
    edit(original, body=ORIGINAL + "\n新的一段，等待翻译。\n")
    fixed = ORIGINAL.replace("完成", "负责") + "\n新的一段，等待翻译。\n"
    edit(original, body=fixed, needs_translation=False)
    assert behind(translation)  # the first edit is still to translate


def test_an_edit_bringing_a_note_in_line_clears_it_and_puts_nothing_behind(pair):
    original, translation = pair
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    assert behind(translation)
    edit(translation, body=TRANSLATION + "\nA new paragraph.\n", in_line=True)
    assert not behind(translation)
    assert not behind(original)  # the translation's new text is the original's


def test_bring_in_line_clears(pair):
    original, translation = pair
    edit(original, body=ORIGINAL.replace("完成", "负责"))
    translation = fresh(translation)
    bring_in_line(translation, fresh(original))
    assert not behind(translation)
    assert not behind(original)


def test_both_versions_can_be_behind_at_once(pair):
    original, translation = pair
    edit(original, body=ORIGINAL + "\n原文新增的一段。\n")
    edit(translation, body=TRANSLATION + "\nA paragraph only the translation has.\n")
    assert behind(original) and behind(translation)
    bring_in_line(fresh(original), fresh(translation))
    assert not behind(original) and behind(translation)


def test_a_note_without_translation_is_never_behind():
    note = make_note(body=ORIGINAL)
    edit(note, body=ORIGINAL + "\n新的一段。\n")
    assert not behind(note)
    assert fresh(note).synced_hashes == ""


def test_a_pair_never_compared_is_never_behind():
    """Linked without link_translation() (an old import): nothing to compare with yet."""
    original = make_note(body=ORIGINAL)
    translation = make_note(language=Language.ENGLISH, body=TRANSLATION, translation=original)
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    assert not behind(translation) and not behind(original)


# --- A translation started from its original ---------------------------------------------------


def test_a_started_translation_is_in_line_with_its_original_which_does_not_follow_it():
    original = make_note(body=ORIGINAL)
    draft = fresh(start_translation(original))
    assert is_original_of(fresh(original), draft) and not is_original_of(draft, fresh(original))
    assert draft.synced_hashes == fresh(original).block_hashes
    assert fresh(original).synced_hashes == ""  # not tracked: the draft is being written
    edit(draft, body=TRANSLATION)
    edit(draft, body=TRANSLATION + "\nMore.\n", in_line=True)
    assert not behind(original)
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    assert behind(draft)


def test_a_translation_started_after_an_unlinked_one_leaves_the_original_untracked(pair):
    """The original was in line with an earlier translation, unlinked since: it does not
    compare the new draft with what that one said."""
    original, translation = pair
    link_translation(fresh(original), None)
    draft = start_translation(fresh(original))
    assert not behind(original)
    assert fresh(original).synced_hashes == ""
    edit(draft, body=TRANSLATION.replace("kernels", "its kernels"))
    assert not behind(original)


# --- Unlinking and linking again ---------------------------------------------------------------


def test_an_unlinked_note_is_behind_nothing(pair):
    original, translation = pair
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    link_translation(fresh(translation), None)
    assert fresh(original).linked_translation() is None
    assert fresh(translation).linked_translation() is None
    assert not behind(translation) and not behind(original)


def test_linking_again_starts_the_pair_in_line(pair):
    original, translation = pair
    link_translation(fresh(original), None)
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    link_translation(fresh(translation), fresh(original))
    assert not behind(translation) and not behind(original)
    edit(original, body=ORIGINAL + "\n又一段。\n")
    assert behind(translation)


def test_linking_to_another_note_compares_with_that_one(pair):
    original, translation = pair
    other = make_note(title="Other", language=Language.ENGLISH, body="## Other\n\nOther text.")
    link_translation(fresh(original), other)
    assert fresh(translation).linked_translation() is None
    assert fresh(other).synced_hashes == fresh(original).block_hashes
    assert fresh(original).synced_hashes == fresh(other).block_hashes
    assert not behind(original) and not behind(other)


def test_saving_a_pair_unchanged_keeps_its_state(pair):
    """A save of either note (the admin's form, an import) is not a new pair."""
    original, translation = pair
    edit(original, body=ORIGINAL + "\n新的一段。\n")
    edit(translation, title="Scheduling, again")
    edit(original, title="调度，再次")
    assert behind(translation) and not behind(original)


# --- When the text last changed ----------------------------------------------------------------


def test_text_changed_at_moves_on_a_change_of_text_only(pair):
    original, _translation = pair
    long_ago = timezone.now() - timedelta(days=30)
    Note.objects.filter(pk=original.pk).update(text_changed_at=long_ago)
    assert edit(original, title="新标题").text_changed_at == long_ago
    assert edit(original, body=ORIGINAL.replace("GPU 上", "GPU上")).text_changed_at == long_ago
    fresh(original).render()
    assert fresh(original).text_changed_at == long_ago
    edited = edit(original, body=ORIGINAL.replace("完成", "负责"))
    assert edited.text_changed_at > long_ago
    assert edited.block_hashes == " ".join(block_hashes(edited.body))


def test_a_new_note_s_text_is_dated_when_it_is_written():
    before = timezone.now()
    note = fresh(make_note(body=ORIGINAL))
    assert note.block_hashes == " ".join(block_hashes(ORIGINAL))
    assert note.text_changed_at >= before


# --- The blocks of the parallel view -----------------------------------------------------------


def parallel(note):
    return [(kind, digest) for kind, digest, _html in fresh(note).parallel_blocks]


def test_a_note_of_a_pair_has_its_blocks_rendered_and_a_single_note_none(pair):
    original, translation = pair
    single = make_note(body=ORIGINAL)
    assert fresh(single).parallel_blocks == []
    for note in (original, translation):
        blocks = fresh(note).parallel_blocks
        assert [digest for _kind, digest, _html in blocks] == note.block_hashes.split()
        assert all(html for _kind, _digest, html in blocks)


def test_a_pair_linked_later_gets_its_blocks(pair):
    original = make_note(body=ORIGINAL)
    translation = make_note(language=Language.ENGLISH, body=TRANSLATION)
    assert parallel(original) == parallel(translation) == []
    link_translation(fresh(original), fresh(translation))
    assert [kind for kind, _digest in parallel(original)] == ["heading", "paragraph", "code"]
    assert [kind for kind, _digest in parallel(translation)] == ["heading", "paragraph", "code"]


def test_a_started_translation_and_its_original_get_their_blocks():
    original = make_note(body=ORIGINAL)
    draft = start_translation(original)
    assert parallel(original) == parallel(draft) != []


def test_the_blocks_follow_an_edit(pair):
    original, _translation = pair
    edited = edit(original, body=ORIGINAL + "\n新的一段。\n")
    assert [digest for _kind, digest in parallel(edited)] == edited.block_hashes.split()
    assert fresh(edited).parallel_blocks[-1][2] == "<p>新的一段。</p>"


# --- Notes written before translation sync -----------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_the_migration_hashes_every_note_and_puts_existing_pairs_in_line():
    """The migration cannot render (it imports no live code): the pair's side-by-side blocks
    are rendered by ``manage.py rerender``, which every upgrade runs (docs/operations.md)."""
    call_command("migrate", "blog", "0013", verbosity=0)
    try:
        then = MigrationExecutor(connection).loader.project_state(("blog", "0013_part_versions"))
        OldNote = then.apps.get_model("blog", "Note")
        written = timezone.now() - timedelta(days=100)
        original = OldNote.objects.create(
            title="调度", slug="old-zh", language="zh-hans", body=ORIGINAL
        )
        OldNote.objects.create(
            title="Scheduling",
            slug="old-en",
            language="en",
            body=TRANSLATION,
            translation_id=original.pk,
        )
        OldNote.objects.create(title="单篇", slug="single", body="没有翻译。")
        OldNote.objects.update(updated_at=written)  # auto_now: the date the notes have
        call_command("migrate", "blog", verbosity=0)
        chinese, english, single = (
            Note.objects.get(slug=s) for s in ("old-zh", "old-en", "single")
        )
        assert chinese.block_hashes == " ".join(block_hashes(ORIGINAL))
        assert single.block_hashes == " ".join(block_hashes("没有翻译。"))
        assert chinese.text_changed_at == single.text_changed_at == written
        assert english.synced_hashes == chinese.block_hashes
        assert chinese.synced_hashes == english.block_hashes
        assert single.synced_hashes == "" and single.parallel_blocks == []
        assert chinese.parallel_blocks == english.parallel_blocks == []
        call_command("rerender", stdout=StringIO())
        chinese.refresh_from_db()
        assert [d for _k, d, _h in chinese.parallel_blocks] == chinese.block_hashes.split()
        assert not behind(chinese) and not behind(english)
        edit(chinese, body=ORIGINAL + "\n新的一段。\n")
        assert behind(english)
    finally:
        call_command("migrate", "blog", verbosity=0)
