"""Corrections readers can see (issue 38): an author marks a save of a published note as a
correction with one line ("修正：H100 的显存带宽应为 3.35 TB/s。"); readers then see it dated under
the title and in a list at the end of the note, at the top of its feed entries (an Atom entry
dated by it), and on the translation's page as part of the notice that its original changed.
An ordinary edit makes none. Corrections travel with the note's Markdown and its backups, and a
revision's restore keeps them.

Everything happens in December 2026 (the clock frozen), so dates read the same on every run.
"""

from datetime import UTC, datetime

import feedparser
import pytest
import reversion
import time_machine
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from blog.caching import pages as page_cache
from blog.models import Correction, Language, Note, SiteSettings
from blog.models.revisions import latest_version, recording, version_of, versions_of
from blog.models.translations import link_translation
from blog.ops.backup import accounts, portable
from blog.porting import frontmatter
from blog.porting.export import export
from blog.porting.run import import_markdown
from tests.commits import committed
from tests.factories import make_draft, make_note, note_form_data

pytestmark = pytest.mark.django_db

SITE = "https://blog.example"
BODY = "## 带宽\n\nH100 的显存带宽是 2 TB/s。\n\n## 小结\n\n带宽决定了 decode 的速度。"
FIXED = BODY.replace("2 TB/s", "3.35 TB/s")
CORRECTION = "修正：H100 的显存带宽应为 3.35 TB/s，之前误写成了 2 TB/s。"


def at(day, hour=10):
    return datetime(2026, 12, day, hour, tzinfo=timezone.get_current_timezone())


@pytest.fixture(autouse=True)
def _site(settings, db):
    settings.SITE_URL = SITE
    settings.BIJI_PAGE_CACHE_SECONDS = 0  # a fresh render each time (one test turns it on)
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    translation.activate("zh-hans")  # a request to /en/ leaves English active in the thread
    yield
    translation.activate("zh-hans")


def author_client(language="zh-hans"):
    client = Client(headers={"accept-language": language})
    user = get_user_model().objects.filter(username="lin").first()
    client.force_login(user or get_user_model().objects.create_superuser("lin", "l@x.cn", None))
    return client


def published(slug="h100", body=BODY, **fields):
    """A note published on 30 November."""
    with time_machine.travel(at(1), tick=False):
        return make_note(title="H100 的带宽", slug=slug, body=body, **fields)


def save_in_admin(client, note, day, **changes):
    """The author's save of ``note``'s change form on ``day`` of December: the response."""
    with time_machine.travel(at(day), tick=False):
        data = note_form_data(note, **changes)
        return client.post(reverse("admin:blog_note_change", args=[note.pk]), data)


def corrected_in_admin(note, day=2, text=CORRECTION, body=FIXED):
    response = save_in_admin(author_client(), note, day, body=body, correction=text)
    assert response.status_code == 302, response.context["adminform"].form.errors
    return Note.objects.get(pk=note.pk)


def page(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return BeautifulSoup(response.content, "html.parser")


def text_of(element):
    return " ".join(element.get_text().split())


def entry_of(client, path, note):
    parsed = feedparser.parse(client.get(path).content)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    return next(entry for entry in parsed.entries if entry.link.endswith(f"/{note.slug}/"))


def entry_text(entry):
    return text_of(BeautifulSoup(entry.content[0].value, "html.parser"))


# The admin.


def test_a_correction_is_kept_with_the_revision_its_save_records():
    note = corrected_in_admin(published())
    [correction] = Correction.objects.filter(note=note)
    assert correction.text == CORRECTION
    assert correction.made_at == note.updated_at == at(2)
    assert correction.revision == latest_version(note).revision  # the same save's
    assert latest_version(note).field_dict["body"] == FIXED


def test_an_ordinary_edit_makes_no_correction_and_readers_see_none(client):
    note = published()
    response = save_in_admin(author_client(), note, 2, body=FIXED)
    assert response.status_code == 302
    assert not Correction.objects.exists()
    soup = page(client, "/notes/h100/")
    assert not soup.select("#corrections, .correction-line")
    entry = entry_of(client, "/feed/atom/", note)
    assert not entry_text(entry).startswith("更正")
    assert entry.updated_parsed[:5] == at(2).astimezone(UTC).timetuple()[:5]  # as edits do


@pytest.mark.parametrize(
    ("language", "error"),
    [
        ("zh-hans", "只有已发布的笔记才能更正"),
        ("en", "Only a published note can be corrected"),
    ],
)
def test_a_correction_of_a_note_never_published_is_refused_and_nothing_typed_is_lost(
    language, error
):
    with time_machine.travel(at(1), tick=False):
        draft = make_draft(title="草稿", slug="draft", body=BODY)
    response = save_in_admin(author_client(language), draft, 2, body=FIXED, correction=CORRECTION)
    assert response.status_code == 200
    html = response.content.decode()
    assert error in html
    form = response.context["adminform"].form
    assert form["correction"].value() == CORRECTION and form["body"].value() == FIXED
    assert Note.objects.get(pk=draft.pk).body == BODY and not Correction.objects.exists()


def test_the_admin_lists_the_corrections_and_deletes_a_mistaken_one():
    note = corrected_in_admin(published())
    [correction] = note.corrections.all()
    author = author_client("en")
    change = author.get(reverse("admin:blog_note_change", args=[note.pk])).content.decode()
    assert CORRECTION in change and "Dec. 2, 2026" in change
    version = latest_version(note)
    assert reverse("admin:blog_note_revision", args=[note.pk, version.pk]) in change
    delete_url = reverse("admin:blog_correction_delete", args=[correction.pk])
    assert delete_url in change
    assert author.get(delete_url).status_code == 200  # Django's confirmation page
    response = author.post(delete_url, {"post": "yes"})
    assert response["Location"] == reverse("admin:blog_note_change", args=[note.pk])
    assert not Correction.objects.exists()
    assert Note.objects.get(pk=note.pk).body == FIXED  # the note itself is left as it is


# The note's page.


@pytest.mark.parametrize(
    ("interface", "heading", "line", "dates"),
    [
        ("", "更正", "更正（2026年12月3日）：", ["2026年12月3日", "2026年12月2日"]),
        ("/en", "Corrections", "Corrected on Dec. 3, 2026:", ["Dec. 3, 2026", "Dec. 2, 2026"]),
    ],
)
def test_the_page_lists_its_corrections_newest_first_and_names_the_newest_under_the_title(
    client, interface, heading, line, dates
):
    note = published()
    Correction.objects.create(note=note, text=CORRECTION, made_at=at(2))
    Correction.objects.create(note=note, text="修正：<b>小结</b> 里的数字。", made_at=at(3))
    soup = page(client, f"{interface}/notes/h100/")
    section = soup.select_one("article section#corrections")
    assert text_of(section.h2) == heading
    items = section.select("li")
    assert [text_of(item.time) for item in items] == dates
    assert items[0].time["datetime"].startswith("2026-12-03T10:00")
    assert [text_of(item.span) for item in items] == ["修正：<b>小结</b> 里的数字。", CORRECTION]
    assert not section.select("b")  # the author's text is plain text
    assert section.find_previous_sibling("div", class_="prose") is not None  # after the text
    newest = soup.select_one("header .correction-line")
    assert text_of(newest) == f"{line} 修正：<b>小结</b> 里的数字。".replace("： ", "：")
    assert newest.a["href"] == "#corrections" and newest.time["datetime"].startswith("2026-12-03")
    assert newest.find_previous_sibling("h1") is not None


def content_queries(client, url):
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return [q["sql"] for q in captured if "blog_contentversion" not in q["sql"]]


def test_a_corrected_page_reads_its_corrections_once_per_content_version(client):
    """An uncorrected page reads nothing more (the page's query reads each note's newest
    correction); a corrected one reads its list, once: the page is kept with it."""
    plain, corrected = published("plain"), published()
    Correction.objects.create(note=corrected, text=CORRECTION, made_at=at(2))
    client.get("/")  # the site settings and the frame, read once
    cold_plain = content_queries(client, "/notes/plain/")
    cold_corrected = content_queries(client, "/notes/h100/")
    assert len(cold_corrected) == len(cold_plain) + 1
    assert content_queries(client, "/notes/h100/") == []  # kept with the page
    assert content_queries(client, "/notes/plain/") == []
    assert plain.pk != corrected.pk


@pytest.mark.django_db(transaction=True)
def test_a_deleted_correction_leaves_the_cached_page_at_once(settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 86400
    reader = Client()
    with committed():
        note = published()
        correction = Correction.objects.create(note=note, text=CORRECTION, made_at=at(2))
    assert page(reader, "/notes/h100/").select("#corrections")
    assert reader.get("/notes/h100/")[page_cache.HEADER] == "hit"
    with committed():
        correction.delete()
    assert not page(reader, "/notes/h100/").select("#corrections")


# Feeds.


def test_the_atom_entry_is_dated_by_its_correction_and_starts_with_it(client):
    note = published()
    Correction.objects.create(note=note, text="修正：<旧> 数字。", made_at=at(3))
    entry = entry_of(client, "/feed/atom/", note)
    assert entry.updated_parsed[:5] == at(3).astimezone(UTC).timetuple()[:5]
    assert entry.published_parsed < entry.updated_parsed
    first = BeautifulSoup(entry.content[0].value, "html.parser").p
    assert text_of(first) == "更正（2026 年 12 月 3 日）：修正：<旧> 数字。"
    assert first.time["datetime"] == "2026-12-03"


def test_the_rss_item_starts_with_its_correction_in_the_notes_language(client):
    english = published("h100-en", body="## Bandwidth\n\nIt is 3.35 TB/s.\n", language="en")
    Correction.objects.create(note=english, text="Corrected: 3.35 TB/s, not 2.", made_at=at(3))
    entry = entry_of(client, "/feed/", english)
    assert entry_text(entry).startswith("Corrected on 3 December 2026: Corrected: 3.35 TB/s")
    assert "updated" not in entry  # RSS 2.0 has no such date; biji writes none


def test_an_ordinary_edit_after_a_correction_keeps_it_on_top_and_dates_the_entry_as_today():
    note = corrected_in_admin(published())
    save_in_admin(author_client(), note, 4, summary="带宽的笔记。")
    entry = entry_of(Client(), "/feed/atom/", note)
    assert entry.updated_parsed[:5] == at(4).astimezone(UTC).timetuple()[:5]
    assert entry_text(entry).startswith(f"更正（2026 年 12 月 2 日）：{CORRECTION}")


# The translation's notice.


def pair(original_language):
    """(original, translation), in line since 1 December; the translation holds the link."""
    with time_machine.travel(at(1), tick=False):
        if original_language == Language.CHINESE:
            original = make_note(title="带宽", slug="bw", body=BODY)
            version = make_note(
                title="Bandwidth", slug="bw-en", language=Language.ENGLISH, body="It is 2 TB/s.\n"
            )
        else:
            original = make_note(
                title="Bandwidth", slug="bw", language=Language.ENGLISH, body="It is 2 TB/s.\n"
            )
            version = make_note(title="带宽", slug="bw-zh", body=BODY)
        link_translation(version, original)
    return Note.objects.get(pk=original.pk), Note.objects.get(pk=version.pk)


def correct(note, old, new, text, day=2):
    with time_machine.travel(at(day), tick=False):
        note.body = note.body.replace(old, new)
        note.save()
        Correction.objects.create(note=note, text=text, made_at=note.updated_at)


ORIGINAL_EN = (
    "The original was corrected on 2 December 2026 (“{}”); this translation may not include "
    "the correction."
)


@pytest.mark.parametrize("interface", ["", "/en"])
def test_the_translation_tells_its_readers_of_its_originals_correction(client, interface):
    original, english = pair(Language.CHINESE)
    correct(original, "2 TB/s", "3.35 TB/s", CORRECTION)
    notice = page(client, f"{interface}/notes/bw-en/").select_one(".translation-notice")
    assert text_of(notice).startswith(ORIGINAL_EN.format(CORRECTION))
    assert notice["lang"] == "en" and notice.span["lang"] == "zh-Hans"
    assert notice.find_previous_sibling().name == "h1"  # the one notice, where it always is
    entry = entry_of(client, "/feed/", english)
    assert entry_text(entry).startswith(ORIGINAL_EN.format(CORRECTION))


def test_a_chinese_translation_says_so_in_chinese(client):
    original, chinese = pair(Language.ENGLISH)
    correct(original, "2 TB/s", "3.35 TB/s", "Corrected: the H100's bandwidth is 3.35 TB/s.")
    notice = page(client, "/notes/bw-zh/").select_one(".translation-notice")
    assert text_of(notice).startswith(
        "原文已于 2026 年 12 月 2 日更正（“Corrected: the H100's bandwidth is 3.35 TB/s.”），"
        "本译文可能未包含这一更正。"
    )


def test_a_translation_revised_since_the_correction_is_told_of_an_update_only(client):
    original, english = pair(Language.CHINESE)
    correct(original, "2 TB/s", "3.35 TB/s", CORRECTION)
    with time_machine.travel(at(3), tick=False):
        english.body = "It is 3.35 TB/s.\n"
        english.save()  # revised, not yet marked in line: still behind
    notice = text_of(page(client, "/notes/bw-en/").select_one(".translation-notice"))
    assert notice.startswith("The original was updated on 2 December 2026")
    assert CORRECTION not in notice


# Export and import, backups, restoring a revision.


def test_corrections_and_credits_travel_with_the_notes_markdown(tmp_path):
    note = published(translator="Ada", coauthors="Grace, 王五")
    note = corrected_in_admin(note)  # with a revision
    Correction.objects.create(note=note, text="修正：小结。", made_at=at(3))
    export(tmp_path)
    document = frontmatter.split((tmp_path / "content/posts/h100.md").read_text())
    assert document.meta["corrections"] == [
        {"date": at(2), "text": CORRECTION},
        {"date": at(3), "text": "修正：小结。"},
    ]
    assert (document.meta["translator"], document.meta["coauthors"]) == ("Ada", "Grace, 王五")
    Note.objects.all().delete()
    assert not Correction.objects.exists()
    import_markdown([tmp_path])
    note = Note.objects.get(slug="h100")
    assert [(c.made_at, c.text, c.revision) for c in note.corrections.all()] == [
        (at(3), "修正：小结。", None),
        (at(2), CORRECTION, None),  # an imported correction has no revision of this site
    ]
    assert (note.translator, note.coauthors) == ("Ada", "Grace, 王五")
    report = import_markdown([tmp_path])  # again: nothing changes, nothing doubles
    assert [o.action for o in report.outcomes if o.source.endswith("h100.md")] == ["unchanged"]
    Note.objects.filter(pk=note.pk).update(title="改过的标题")
    report = import_markdown([tmp_path])  # the note updated: its corrections are not doubled
    assert [o.action for o in report.outcomes if o.source.endswith("h100.md")] == ["updated"]
    assert note.corrections.count() == 2


def test_a_backup_carries_the_corrections_with_their_revisions(tmp_path):
    note = corrected_in_admin(published())
    [kept] = Correction.objects.values_list("pk", "note_id", "text", "made_at", "revision_id")
    path = tmp_path / "data.json"
    with open(path, "w", encoding="utf-8") as stream:
        portable.dump(stream, "default")
    Correction.objects.all().delete()
    plan = accounts.admit(path, "default", with_accounts=True)
    portable.load(path, "default", plan=plan, replace=True, keep=accounts.account_labels())
    assert list(
        Correction.objects.values_list("pk", "note_id", "text", "made_at", "revision_id")
    ) == [kept]
    assert note.corrections.get().revision is not None


def test_restoring_an_earlier_version_keeps_the_corrections():
    note = published()
    with time_machine.travel(at(1), tick=False), recording(comment="first"):
        reversion.add_to_revision(note)  # the version the author goes back to
    note = corrected_in_admin(note)
    first = list(versions_of(note))[-1]
    response = author_client().post(
        reverse("admin:blog_note_revision", args=[note.pk, first.pk]),
        {"edit_version": version_of(note)},
    )
    assert response.status_code == 302
    assert Note.objects.get(pk=note.pk).body == BODY  # restored
    assert [c.text for c in Note.objects.get(pk=note.pk).corrections.all()] == [CORRECTION]
