"""A series an import creates is reported as lacking its other title only if it still lacks
it when the import ends: a Hugo pair whose other file names it in the other language gives it
both titles, and no warning."""

import pytest

from blog.models import Series
from blog.porting.run import import_markdown
from tests.imports import site_folder

pytestmark = pytest.mark.django_db

CONFIG = 'defaultContentLanguage = "zh"\n[languages.zh]\nweight = 1\n[languages.en]\nweight = 2\n'
ZH = "---\ntitle: Hopper 调度\ndate: 2025-06-01\n{series}---\n写 kernel 时我们以线程思考。\n"
EN = "---\ntitle: Hopper scheduling\ndate: 2025-06-02\n{series}---\nWe think in threads.\n"
WARNING = "give it its other title in the admin"


def warnings(zh_series, en_series, dry_run=False):
    site = site_folder(
        "site",
        {
            "hugo.toml": CONFIG,
            "content/posts/hopper.md": ZH.format(series=zh_series),
            "content/posts/hopper.en.md": EN.format(series=en_series),
        },
    )
    report = import_markdown([site], dry_run=dry_run)
    return [line for line in report.lines() if WARNING in line]


@pytest.mark.parametrize("dry_run", [False, True])
def test_no_warning_when_the_pairs_other_file_names_the_series(tmp_path, monkeypatch, dry_run):
    monkeypatch.chdir(tmp_path)
    assert (
        warnings('categories: ["Hopper 笔记"]\n', 'categories: ["Hopper notes"]\n', dry_run) == []
    )
    if not dry_run:
        series = Series.objects.get()
        assert (series.title_zh, series.title_en) == ("Hopper 笔记", "Hopper notes")


def test_a_warning_once_when_no_file_names_its_other_title(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert warnings('categories: ["Hopper 笔记"]\n', "") == [
        f"content/posts/hopper.md: warning: new series 'Hopper 笔记': {WARNING}"
    ]
