"""Share cards: a 1200×630 image per published note, series, tag and the home page, made on the
background runner when what it shows changes, stored under a name that changes with it; the
title broken into lines by the page's CJK rules, never drawn as boxes; `manage.py sharecards`
for the rest."""

import io
import logging
import shutil
import subprocess
from datetime import timedelta
from io import StringIO

import pytest
import reversion
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from PIL import Image
from reversion.models import Version

from blog.images import card_fonts as fonts_module
from blog.images.card_fonts import Face, card_fonts, has_glyph
from blog.images.card_tasks import make_cards
from blog.images.cards import HEIGHT, LEFT, RIGHT_MARGIN, WIDTH, Card, drawable, title_layout
from blog.models import Language, Note, Series, SiteSettings, Status, Tag
from blog.text.line_breaks import NO_END, NO_START, fit, segments
from tests.background import run_queued_tasks
from tests.factories import make_draft, make_note, make_series, make_tag

BOX = WIDTH - LEFT - RIGHT_MARGIN  # the title's width on a card without a cover


def stored(obj):
    return type(obj).objects.get(pk=obj.pk)


def opened(name):
    with default_storage.open(name) as file:
        image = Image.open(io.BytesIO(file.read()))
        image.load()
    return image


def card_tasks():
    return DBTaskResult.objects.filter(task_path__endswith=".make_cards")


def latin_only_font():
    """A font without Chinese glyphs (DejaVu Sans, which fontconfig always has here)."""
    path, fc_match = "", shutil.which("fc-match")
    if fc_match:
        path = subprocess.run(  # noqa: S603 (a fixed command)
            [fc_match, "-f", "%{file}", "DejaVu Sans"], capture_output=True, text=True
        ).stdout
    if not path.endswith(".ttf"):
        pytest.fail("DejaVu Sans is missing: the tests need a font without Chinese glyphs")
    return path


def photo(colour="#c0392b", size=(1600, 1200)):
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG", quality=90)
    return default_storage.save("covers/2026/photo.jpg", ContentFile(out.getvalue()))


@pytest.fixture
def fonts():
    found = card_fonts()
    if found is None:
        pytest.fail("Noto Sans CJK is missing: run scripts/install-fonts.sh")
    return found


@pytest.fixture
def fresh_font_lookup():
    fonts_module.forget()
    yield
    fonts_module.forget()


# --- made in the background, when what it shows changes ------------------------------------


@pytest.mark.django_db(transaction=True)
def test_publishing_a_note_makes_its_card_on_the_background_runner(fonts):
    note = make_draft(title="Warp 调度：从 SM 说起", slug="warp")
    run_queued_tasks()
    assert stored(note).card == "" and not default_storage.exists("cards")  # a draft has none
    note.status = Status.PUBLISHED
    note.save()
    assert stored(note).card == ""  # the save waits for no image
    run_queued_tasks()
    name = stored(note).card
    assert name.startswith("cards/notes/warp-") and name.endswith(".png")
    image = opened(name)
    assert (image.format, image.size) == ("PNG", (1200, 630))


@pytest.mark.django_db(transaction=True)
def test_a_title_change_makes_a_new_card_and_deletes_the_old_file(fonts):
    note = make_note(title="CUDA warp 调度", slug="warp")
    run_queued_tasks()
    old = stored(note).card
    note.title = "CUDA warp 调度：SM 里究竟发生了什么"
    note.save()
    run_queued_tasks()
    new = stored(note).card
    assert new != old and new.startswith("cards/notes/warp-")
    assert default_storage.exists(new) and not default_storage.exists(old)


@pytest.mark.django_db(transaction=True)
def test_storing_the_card_is_no_edit_and_queues_no_further_card(fonts):
    long_ago = timezone.now() - timedelta(days=30)
    with reversion.create_revision():
        note = make_note(title="调度笔记", body="## 调度\n\n正文。\n")
    Note.objects.filter(pk=note.pk).update(updated_at=long_ago)
    before = stored(note)
    revisions = Version.objects.get_for_object(note).count()
    run_queued_tasks()
    after = stored(note)
    assert after.card
    assert after.updated_at == long_ago  # no "Updated" on the page, no share link revoked
    assert (after.block_hashes, after.text_changed_at) == (
        before.block_hashes,
        before.text_changed_at,
    )
    assert Version.objects.get_for_object(note).count() == revisions
    # The card's own save queued nothing: no loop.
    assert card_tasks().count() == 1
    assert not card_tasks().exclude(status=TaskResultStatus.SUCCESSFUL).exists()


@pytest.mark.django_db(transaction=True)
def test_one_transaction_queues_one_task_and_running_it_again_draws_nothing(fonts):
    tag, series = make_tag(), make_series()
    queued = card_tasks().count()
    with transaction.atomic():
        for position in (1, 2, 3):
            make_note(tags=[tag], series=series, series_position=position)
    assert card_tasks().count() == queued + 1
    run_queued_tasks()
    names = sorted(Note.objects.values_list("card", flat=True))
    assert all(names)
    result = make_cards.call(notes=list(Note.objects.values_list("pk", flat=True)))
    assert result["made"] == 0 and result["kept"] == 3 + 2 + 2  # notes, series, tag
    assert sorted(Note.objects.values_list("card", flat=True)) == names


@pytest.mark.django_db(transaction=True)
def test_a_draft_has_no_card_and_unpublishing_takes_the_cards_away(fonts):
    tag = make_tag()
    note = make_note(tags=[tag])
    run_queued_tasks()
    card, tag_cards = stored(note).card, (stored(tag).card_zh, stored(tag).card_en)
    assert card and all(tag_cards)
    note.status, note.published_at = Status.DRAFT, None
    note.save()
    run_queued_tasks()
    assert stored(note).card == "" and not default_storage.exists(card)
    # The tag lists no note any more: its page is gone, and its cards with it.
    assert (stored(tag).card_zh, stored(tag).card_en) == ("", "")
    assert not any(default_storage.exists(name) for name in tag_cards)


@pytest.mark.django_db(transaction=True)
def test_a_series_renamed_remakes_its_cards_and_its_notes_cards(fonts):
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记")
    note = make_note(series=series, series_position=2)
    run_queued_tasks()
    first = stored(series)
    assert first.card_zh and first.card_en and first.card_zh != first.card_en
    assert "-zh-" in first.card_zh and "-en-" in first.card_en
    note_card = stored(note).card
    series.title_zh = "GPU 学习笔记"
    series.save()
    run_queued_tasks()
    assert stored(note).card != note_card  # its card names the series
    assert stored(series).card_zh != first.card_zh


@pytest.mark.django_db(transaction=True)
def test_a_tag_card_follows_its_count_and_its_name(fonts):
    tag = make_tag("Scheduling", "调度")
    make_note(tags=[tag])
    run_queued_tasks()
    one = stored(tag).card_en
    make_note(tags=[tag])  # "2 notes" now
    run_queued_tasks()
    two = stored(tag).card_en
    assert two != one and not default_storage.exists(one)
    tag.name = "Schedulers"
    tag.save()
    run_queued_tasks()
    assert stored(tag).card_en != two


@pytest.mark.django_db(transaction=True)
def test_the_site_settings_make_the_home_cards_and_renaming_the_site_remakes_every_card(fonts):
    site = SiteSettings.objects.create(
        title="笔记 biji", tagline_zh="GPU 与系统", tagline_en="GPUs"
    )
    note = make_note()
    run_queued_tasks()
    home = stored(site)
    assert home.card_zh.startswith("cards/home/zh-") and home.card_en.startswith("cards/home/en-")
    note_card = stored(note).card
    site.title = "林舟的笔记"
    site.save()
    run_queued_tasks()
    assert stored(site).card_zh != home.card_zh
    assert stored(note).card != note_card  # every card names the site


@pytest.mark.django_db(transaction=True)
def test_a_note_with_a_cover_gets_a_jpeg_card_with_the_photo_on_its_right(fonts):
    note = make_note(cover=photo("#c0392b"), cover_alt="A red photo")
    run_queued_tasks()
    name = stored(note).card
    image = opened(name)
    assert name.endswith(".jpg") and (image.format, image.size) == ("JPEG", (1200, 630))
    red, green, blue = image.convert("RGB").getpixel((WIDTH - 100, HEIGHT // 2))
    assert red > 160 and green < 90 and blue < 90  # the cover's panel
    assert image.convert("RGB").getpixel((LEFT + 600, 20)) == (255, 255, 255)


# --- no tofu --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_without_a_font_that_draws_chinese_no_card_is_made_and_a_warning_says_so(
    settings, caplog, fresh_font_lookup
):
    settings.BIJI_CARD_FONT = latin_only_font()
    note = make_note(title="没有中文字体")
    with caplog.at_level(logging.WARNING):
        run_queued_tasks()
    assert stored(note).card == ""
    assert "not a font that draws Chinese" in caplog.text
    assert not default_storage.exists("cards")


@pytest.mark.django_db
def test_with_no_cjk_font_on_the_machine_the_command_refuses(
    settings, monkeypatch, caplog, fresh_font_lookup
):
    settings.BIJI_CARD_FONT = ""
    monkeypatch.delenv("BIJI_CARD_FONT", raising=False)
    monkeypatch.setattr(fonts_module, "KNOWN_PLACES", ())
    monkeypatch.setattr(fonts_module, "_fc_match", lambda weight: Face(latin_only_font()))
    make_note()
    with caplog.at_level(logging.WARNING), pytest.raises(CommandError, match="No font"):
        call_command("sharecards", stdout=StringIO())
    assert "No font with Chinese glyphs" in caplog.text


def test_every_character_of_a_title_has_a_glyph_in_the_font_used(fonts):
    title = "FlashAttention 的分块与 online softmax：为什么快？「引号」——《书名》…… é ü 3.14%"
    assert all(has_glyph(fonts.bold, character) for character in title)
    # The check tells a glyph from the box a font draws for what it lacks.
    assert not has_glyph(Face(latin_only_font()), "中")
    # What the font lacks is left out, never drawn as a box.
    assert drawable("GPU 🚀 笔记", fonts.bold) == "GPU 笔记"


# --- line breaking --------------------------------------------------------------------------


def one_per_character(text, size):
    return len(text) * size


MIXED = "调度器，为什么要这样做。（实验）「结果」如下：GPU、CPU 与“内存”……之后——再说！完"


@pytest.mark.parametrize("width", range(6, 30))
def test_no_line_starts_with_closing_or_ends_with_opening_punctuation(width):
    fitted = fit(MIXED, width, one_per_character, sizes=(1,), max_lines=100)
    assert "".join(fitted.lines).replace(" ", "") == MIXED.replace(" ", "")
    for line in fitted.lines:
        assert line[0] not in NO_START, fitted.lines  # 。，、）」”… and the like
        assert line[-1] not in NO_END, fitted.lines  # （「“ and the like
        assert len(line) <= width
    assert all("——" in line for line in fitted.lines if "—" in line)  # never split


ENGLISH = "Why the warp scheduler issues one instruction per cycle on H100 GPUs (and A100)."


@pytest.mark.parametrize("width", range(12, 40, 3))
def test_latin_words_are_never_split(width):
    fitted = fit(ENGLISH, width, one_per_character, sizes=(1,), max_lines=100)
    assert " ".join(fitted.lines) == ENGLISH
    assert all(len(line) <= width for line in fitted.lines)
    mixed = fit("在 H100 上超越 cuBLAS 的 GEMM", 7, one_per_character, sizes=(1,), max_lines=100)
    words = {word for line in mixed.lines for word in line.split()}
    assert {"H100", "cuBLAS", "GEMM"} <= {w.strip("在上超越的") for w in words}


def test_chinese_breaks_between_characters_and_where_latin_meets_chinese():
    assert segments("在H100上") == ["在", "H100", "上"]
    assert segments("GPU 笔记。") == ["GPU ", "笔", "记。"]


def test_a_long_title_is_set_smaller_and_shortened_at_a_break_within_the_box(fonts):
    def layout(title):
        return title_layout(Card(kind="note", language="zh-hans", title=title), fonts, BOX)

    short, longer = (
        layout("CUDA warp 调度"),
        layout("CUDA warp 调度：" + "SM 里究竟发生了什么，" * 4),
    )
    assert short.size > longer.size and not longer.shortened
    endless = layout("并行计算是指同时使用多种计算资源解决计算问题的过程，" * 12)
    assert endless.shortened and endless.lines[-1].endswith("…")
    assert len(endless.lines) <= 4
    for fitted in (short, longer, endless):
        font = fonts.bold.font(fitted.size)
        assert all(font.getlength(line) <= BOX for line in fitted.lines)
    kept = "".join(endless.lines)[:-1]
    assert ("并行计算是指同时使用多种计算资源解决计算问题的过程，" * 12).startswith(kept)


def test_a_word_wider_than_the_box_is_cut_between_whole_characters():
    word = "e\u0301" * 30  # é as e and a combining accent: one character each
    fitted = fit(word, 10, one_per_character, sizes=(1,), max_lines=3)
    assert fitted.shortened and len(fitted.lines) == 3
    for line in fitted.lines:
        assert not line.startswith("\u0301")
        assert len(line) <= 10


# --- the command ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # as in production: each card's files follow its commit
def test_sharecards_makes_what_is_missing_and_a_second_run_finds_nothing_to_do(fonts):
    SiteSettings.objects.create(title="笔记 biji")
    tag, series = make_tag(), make_series()
    note = make_note(tags=[tag], series=series, series_position=1)
    english = make_note(title="Warp scheduling", language=Language.ENGLISH, tags=[tag])
    make_draft(title="草稿")
    out = StringIO()
    call_command("sharecards", stdout=out)
    # two notes, a series and a tag in two languages, the home page in two
    assert "Share cards made: 8;" in out.getvalue()
    assert stored(note).card and stored(english).card
    assert all(getattr(stored(obj), f) for obj in (tag, series) for f in ("card_zh", "card_en"))
    assert Note.objects.filter(status=Status.DRAFT, card="").count() == 1

    out = StringIO()
    call_command("sharecards", stdout=out)
    assert out.getvalue().strip() == "Share cards up to date (8): nothing to do."

    left = default_storage.save("cards/notes/gone-000000000000.png", ContentFile(b"x"))
    Series.objects.filter(pk=series.pk).update(title_en="Renamed")  # no signal: stale
    out = StringIO()
    call_command("sharecards", stdout=out)
    assert "Share cards made: 2;" in out.getvalue()  # the series' two (its note is Chinese)
    assert "unused files deleted: 1." in out.getvalue()
    assert not default_storage.exists(left)
    assert Tag.objects.get(pk=tag.pk).card_zh == stored(tag).card_zh
