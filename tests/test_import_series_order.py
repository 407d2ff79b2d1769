"""Imported posts join their series in date order, unless their file states a position."""

import pytest

from blog.models import Note, Series
from blog.porting.run import import_markdown
from tests.imports import site_folder

pytestmark = pytest.mark.django_db


def post(title, day, extra=""):
    return f"---\ntitle: {title}\ndate: {day}\ncategories: [GPU notes]\n{extra}---\nText.\n"


def positions():
    return list(
        Note.objects.filter(series__isnull=False, language="en")
        .order_by("series_position")
        .values_list("title", "series_position")
    )


def test_an_older_post_imported_later_becomes_the_earlier_part(tmp_path):
    first = site_folder(
        tmp_path / "a",
        {
            "content/posts/b.md": post("June 2025", "2025-06-01"),
            "content/posts/c.md": post("December 2026", "2026-12-01"),
        },
    )
    import_markdown([first])
    later = site_folder(tmp_path / "b", {"content/posts/a.md": post("March 2025", "2025-03-01")})
    import_markdown([later])
    assert positions() == [("March 2025", 1), ("June 2025", 2), ("December 2026", 3)]


def test_a_post_between_two_parts_goes_between_them(tmp_path):
    import_markdown(
        [
            site_folder(
                tmp_path / "a",
                {
                    "content/posts/a.md": post("One", "2025-01-01"),
                    "content/posts/c.md": post("Three", "2025-03-01"),
                },
            )
        ]
    )
    import_markdown(
        [site_folder(tmp_path / "b", {"content/posts/b.md": post("Two", "2025-02-01")})]
    )
    assert positions() == [("One", 1), ("Two", 2), ("Three", 3)]


def test_a_stated_position_wins_over_the_date(tmp_path):
    import_markdown(
        [
            site_folder(
                tmp_path / "a",
                {
                    "content/posts/a.md": post("Old but second", "2024-01-01", "weight: 2\n"),
                    "content/posts/b.md": post("New but first", "2025-01-01", "weight: 1\n"),
                },
            )
        ]
    )
    assert positions() == [("New but first", 1), ("Old but second", 2)]


def test_translations_move_with_the_parts_they_translate(tmp_path):
    Series.objects.create(title_zh="GPU 笔记", title_en="GPU notes", slug="gpu-notes")
    site = site_folder(
        tmp_path / "a",
        {
            "content/posts/late.md": (
                "---\ntitle: 晚\ndate: 2026-12-01\ncategories: [GPU 笔记]\n"
                "translationKey: late\n---\n正文。\n"
            ),
            "content/posts/late.en.md": (
                "---\ntitle: Late\ndate: 2026-12-02\ncategories: [GPU notes]\n"
                "translationKey: late\n---\nText.\n"
            ),
        },
    )
    import_markdown([site])
    early = site_folder(
        tmp_path / "b",
        {
            "content/posts/early.md": (
                "---\ntitle: 早\ndate: 2025-03-01\ncategories: [GPU 笔记]\n---\n正文。\n"
            )
        },
    )
    import_markdown([early])
    late_zh, late_en = Note.objects.get(title="晚"), Note.objects.get(title="Late")
    assert Note.objects.get(title="早").series_position == 1
    assert late_zh.series_position == late_en.series_position == 2


def test_reimporting_keeps_the_positions(tmp_path):
    site = site_folder(
        tmp_path / "a",
        {
            "content/posts/a.md": post("One", "2025-01-01"),
            "content/posts/b.md": post("Two", "2025-02-01"),
        },
    )
    import_markdown([site])
    assert import_markdown([site]).counts == {"unchanged": 2}
    assert positions() == [("One", 1), ("Two", 2)]
