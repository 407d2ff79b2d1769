"""Dates that cannot break the site: publication times from 1970 to 2200, original dates of
translated articles from the year 1000, checked on the model, in the admin and in every importer.

Before, on PostgreSQL a note dated year 1 was stored as ``0001-12-31 BC`` and the archive,
feeds, sitemap, search and the admin's note list answered 500; on SQLite the save itself did.
Run these on both databases (``DATABASE_URL=postgres://…`` for PostgreSQL).
"""

import datetime
import importlib
from io import StringIO
from pathlib import Path
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from blog.models import Note, Status
from blog.porting.run import import_markdown, import_wordpress
from blog.text.date_range import PUBLICATION
from tests.factories import make_note, make_page, note_form_data

pytestmark = pytest.mark.django_db

PUBLIC_PAGES = [
    "/",
    "/en/",
    "/archive/",
    "/en/archive/",
    "/tags/",
    "/series/",
    "/search/?q=GPU",
    "/en/search/?q=GPU",
    "/feed/",
    "/feed/atom/",
    "/lang/en/feed/",
    "/sitemap.xml",
    "/sitemap-notes.xml",
]


def assert_site_answers():
    """Every public page, and the admin's note list, answer 200."""
    client = Client()
    urls = PUBLIC_PAGES + [note.get_absolute_url() for note in Note.objects.published()]
    failing = {url: status for url in urls if (status := client.get(url).status_code) != 200}
    assert failing == {}
    admin = get_user_model().objects.create_superuser("checker", "c@example.com", None)
    client.force_login(admin)
    assert client.get(reverse("admin:blog_note_changelist")).status_code == 200


@pytest.fixture
def author(client):
    """An author whose admin is in English (the messages below are quoted in English)."""
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def field_errors(response, field):
    soup = BeautifulSoup(response.content, "html.parser")
    row = soup.select_one(f".field-{field}")
    return [item.get_text() for item in row.select(".errorlist li")] if row else []


# --- the admin form -------------------------------------------------------------------------


@pytest.mark.parametrize("day", ["0001-01-01", "1969-12-31", "2201-01-01", "9999-12-31"])
def test_admin_refuses_a_publication_date_outside_1970_to_2200_on_the_field(author, day):
    make_note(title="已有的笔记")
    data = note_form_data(status="published", published_at_0=day, published_at_1="00:00:00")
    response = author.post(reverse("admin:blog_note_add"), data)
    assert response.status_code == 200
    [error] = field_errors(response, "published_at")
    assert "from 1970 to 2200" in error and "typo" in error
    assert Note.objects.count() == 1
    assert_site_answers()


def test_the_chinese_admin_says_it_in_chinese(author):
    data = note_form_data(
        source_date="0001-01-01", published_at_0="0001-01-01", published_at_1="00:00:00"
    )
    response = author.post(reverse("admin:blog_note_add"), data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert field_errors(response, "published_at") == [
        "请使用 1970 年到 2200 年之间的日期：超出这些年份的发布或编辑时间多半是笔误，"
        "数据库也无法可靠地存储和排序。"
    ]
    assert field_errors(response, "source_date") == [
        "请使用 1000 年到 2200 年之间的日期：超出这些年份的日期无法可靠地存储和显示。"
    ]


def test_admin_reads_a_five_digit_year_as_no_date(author):
    data = note_form_data(status="published", published_at_0="10000-01-01", published_at_1="00:00")
    response = author.post(reverse("admin:blog_note_add"), data)
    assert response.status_code == 200 and field_errors(response, "published_at")
    assert not Note.objects.exists()


def test_admin_changing_a_published_note_to_year_1_is_refused_and_the_note_kept(author):
    note = make_note(title="旧笔记")
    stored = Note.objects.get(pk=note.pk).published_at
    data = note_form_data(note, published_at_0="0001-01-01", published_at_1="08:00:00")
    response = author.post(reverse("admin:blog_note_change", args=[note.pk]), data)
    assert response.status_code == 200 and field_errors(response, "published_at")
    assert Note.objects.get(pk=note.pk).published_at == stored
    assert_site_answers()


def test_admin_accepts_the_first_and_last_day_and_an_old_original_date(author):
    for day in ("1970-01-01", "2200-12-31"):
        data = note_form_data(
            title=f"Note of {day}",
            status="published",
            published_at_0=day,
            published_at_1="00:00:00",
            source_date="1967-04-01",
        )
        assert author.post(reverse("admin:blog_note_add"), data).status_code == 302
    assert sorted(n.source_date.year for n in Note.objects.all()) == [1967, 1967]
    assert_site_answers()


@pytest.mark.parametrize("day", ["0001-01-01", "0999-12-31", "2201-01-01"])
def test_admin_refuses_an_original_date_no_database_form_round_trip_keeps(author, day):
    data = note_form_data(source_date=day)
    response = author.post(reverse("admin:blog_note_add"), data)
    assert response.status_code == 200
    [error] = field_errors(response, "source_date")
    assert "from the year 1000 to 2200" in error
    assert not Note.objects.exists()


# --- the model -------------------------------------------------------------------------------


def local(*args):
    return timezone.make_aware(datetime.datetime(*args))


@pytest.mark.parametrize(
    "moment",
    [
        local(1, 1, 1),
        local(1969, 12, 31, 23, 59),
        local(2201, 1, 1),
        datetime.datetime(9999, 12, 31, 23, tzinfo=datetime.UTC),  # year 10000 in UTC+8
        datetime.datetime(1, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=-8))),
    ],
)
def test_full_clean_refuses_a_publication_time_outside_the_range(moment):
    note = Note(title="Out of range", status=Status.PUBLISHED, published_at=moment)
    with pytest.raises(ValidationError) as refused:
        note.full_clean()
    assert list(refused.value.message_dict) == ["published_at"]


def test_full_clean_takes_the_bounds_in_the_sites_time_zone_and_old_originals():
    for moment in (local(1970, 1, 1), local(2200, 12, 31, 23, 59, 59)):
        Note(title="In range", status=Status.PUBLISHED, published_at=moment).full_clean()
    Note(title="A 1967 paper", source_date=datetime.date(1967, 4, 1)).full_clean()
    Note(title="Earliest", source_date=datetime.date(1000, 1, 1)).full_clean()
    with pytest.raises(ValidationError) as refused:
        Note(title="Too early", source_date=datetime.date(999, 12, 31)).full_clean()
    assert list(refused.value.message_dict) == ["source_date"]


# --- the importers ---------------------------------------------------------------------------


def write(folder, name, front_matter):
    path = Path(folder) / "content" / "posts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntitle: {name}\n{front_matter}---\n\nGPU 笔记正文。\n", "utf-8")


def test_markdown_files_with_dates_out_of_range_are_reported_and_skipped(tmp_path):
    write(tmp_path, "good.md", "date: 2024-05-01\nsource_date: 1967-04-01\n")
    write(tmp_path, "year-one.md", "date: 0001-01-01\n")
    write(tmp_path, "year-ten-thousand.md", "date: 10000-01-01\n")
    write(tmp_path, "updated-in-1900.md", "date: 2024-05-01\nlastmod: 1900-01-01T00:00:00Z\n")
    write(tmp_path, "original-too-old.md", "date: 2024-05-01\nsource_date: 0500-01-01\n")
    (tmp_path / "content" / "posts" / "0001-01-01-jekyll-name.md").write_text(
        "---\ntitle: Jekyll\n---\n\nbody\n", "utf-8"
    )
    with translation.override("en"):
        report = import_markdown([tmp_path])
        lines = "\n".join(report.lines())
    assert list(Note.objects.values_list("slug", flat=True)) == ["good"]
    assert Note.objects.get().source_date == datetime.date(1967, 4, 1)
    assert report.counts == {"created": 1, "skipped": 5}
    for name, line in (
        ("year-one.md", 3),
        ("year-ten-thousand.md", 3),
        ("updated-in-1900.md", 4),
        ("original-too-old.md", 4),
    ):
        assert f"content/posts/{name}:{line}: error: not imported: " in lines
    assert lines.count("from 1970 to 2200") == 4  # three publication times and the file name
    assert "source_date: 0500-01-01: Use a date from the year 1000" in lines
    assert_site_answers()


WXR = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:wp="http://wordpress.org/export/1.2/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Old blog</title><language>zh-CN</language>{items}</channel></rss>
"""
ITEM = """<item><title>{title}</title><wp:post_id>{id}</wp:post_id>
<wp:post_name>{title}</wp:post_name><wp:post_type>post</wp:post_type>
<wp:status>publish</wp:status><wp:post_date_gmt>{date}</wp:post_date_gmt>
<wp:post_modified_gmt>{date}</wp:post_modified_gmt>
<content:encoded><![CDATA[<p>GPU 笔记。</p>]]></content:encoded></item>
"""


def test_wordpress_items_with_dates_out_of_range_are_reported_and_skipped(tmp_path):
    items = [
        ("fine", 1, "2024-05-01 08:00:00"),
        ("year-one", 2, "0001-01-01 00:00:00"),
        ("year-ten-thousand", 3, "10000-01-01 00:00:00"),
    ]
    export = tmp_path / "export.xml"
    export.write_text(
        WXR.format(items="".join(ITEM.format(title=t, id=i, date=d) for t, i, d in items)),
        "utf-8",
    )
    with translation.override("en"):
        report = import_wordpress(export)
        lines = "\n".join(report.lines())
    assert list(Note.objects.values_list("slug", flat=True)) == ["fine"]
    assert "export.xml#item 2 (id 2): error: not imported: date '0001-01-01 00:00:00'" in lines
    assert "export.xml#item 3 (id 3): error: not imported: date '10000-01-01 00:00:00'" in lines
    assert lines.count("from 1970 to 2200") == 2
    make_page()
    assert_site_answers()


# --- what slipped in before the check --------------------------------------------------------


def test_repair_dates_brings_back_a_site_broken_by_dates_stored_before_the_check():
    """On PostgreSQL, a year-1 note (stored as BC) and a year-10000 schedule as an older biji
    stored them; on SQLite, the year-1 time it could store. ``repair_dates`` moves them to the
    range's bounds and every page answers again."""
    early, late = store_dates_an_older_biji_let_through()
    out = StringIO()
    call_command("repair_dates", stdout=out)
    assert "blog.note.published_at: " in out.getvalue()
    assert_moved_to_the_bounds(early, late)
    assert_site_answers()
    out = StringIO()
    call_command("repair_dates", stdout=out)
    assert "nothing to repair" in out.getvalue()


def test_upgrading_repairs_them_without_the_command():
    """The data migration does what ``repair_dates`` does, with the historical models."""
    early, late = store_dates_an_older_biji_let_through()
    migration = "0012_repair_out_of_range_dates"
    state = MigrationLoader(connection).project_state(("blog", migration))
    module = importlib.import_module(f"blog.migrations.{migration}")
    # RunPython hands the function a schema editor; the repair reads only its connection (a
    # real one cannot be opened inside the test's transaction on SQLite).
    module.repair(state.apps, SimpleNamespace(connection=connection))
    assert_moved_to_the_bounds(early, late)
    assert_site_answers()


def store_dates_an_older_biji_let_through():
    early, late = make_note(title="Year one"), make_scheduled_note()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "UPDATE blog_note SET published_at = '0001-12-31 16:00:00+00 BC' WHERE id = %s",
                [early.pk],
            )
            cursor.execute(
                "UPDATE blog_note SET published_at = '10000-01-01 00:00:00+00' WHERE id = %s",
                [late.pk],
            )
        else:
            cursor.execute(
                "UPDATE blog_note SET published_at = '0001-01-01 00:00:00' WHERE id = %s",
                [early.pk],
            )
    return early, late


def assert_moved_to_the_bounds(early, late):
    low, high = PUBLICATION.bounds()
    assert Note.objects.get(pk=early.pk).published_at == low
    if connection.vendor == "postgresql":
        assert Note.objects.get(pk=late.pk).published_at == high


def make_scheduled_note():
    return make_note(title="Far future", published_ago=-datetime.timedelta(days=30))
