"""One bad file never fails an import: it is reported for its file and skipped, the rest imported.

Each of these made the whole admin import answer 500 (or 400): a year-1 date, ``tags_zh: 5``,
``series_position: .inf``, TOML nested 500 deep, a body link to ``/media//etc/x.png``, and in
the zip a damaged member, a file and a folder of the same name, a name over 255 bytes.
"""

import io
import zipfile
from pathlib import Path

import pytest
from django.conf import settings

from blog.models import Note
from blog.porting.run import import_markdown
from tests.factories import author_with
from tests.imports import import_through_admin, site_folder

pytestmark = pytest.mark.django_db

GOOD = "---\ntitle: Good note\ndate: 2025-06-01\n---\n\nStill imported.\n"
NESTED = '+++\ntitle = "Deep"\nnested = ' + "[" * 500 + "1" + "]" * 500 + "\n+++\n\nBody.\n"
BAD_FILES = {
    "content/posts/good.md": GOOD,
    "content/posts/year-one.md": "---\ntitle: Year one\ndate: 0001-01-01\n---\n\nOld.\n",
    "content/posts/tags-zh.md": "---\ntitle: Tags\ntags: [GPU]\ntags_zh: 5\n---\n\nBody.\n",
    "content/posts/infinite.md": (
        "---\ntitle: Infinite\ncategories: [GPU notes]\nseries_position: .inf\n---\n\nBody.\n"
    ),
    "content/posts/nested.md": NESTED,
}
MEDIA_LINK = "---\ntitle: Media link\n---\n\nSee ![x](/media//etc/x.png).\n"


def report_text(report):
    return "\n".join(report.lines())


def test_each_bad_file_is_reported_with_its_line_and_the_good_one_imported(tmp_path):
    folder = site_folder(tmp_path / "site", {**BAD_FILES, "content/posts/media.md": MEDIA_LINK})
    report = import_markdown([folder])
    text = report_text(report)
    assert "content/posts/year-one.md:3: error: not imported: " in text
    assert (
        "content/posts/tags-zh.md:4: error: not imported: tags_zh must be a list of names" in text
    )
    assert (
        "content/posts/infinite.md:4: error: not imported: series_position must be a whole "
        "number" in text
    )
    assert "content/posts/nested.md:2: error: not imported: front matter is nested too deeply" in (
        text
    )
    # A link to no file biji would store is a warning: the note is imported, the link kept.
    assert (
        "content/posts/media.md:5: warning: /media//etc/x.png: not a file of the media folder"
        in text
    )
    assert sorted(Note.objects.values_list("title", flat=True)) == ["Good note", "Media link"]
    assert report.counts == {"created": 2, "skipped": 4}


@pytest.mark.parametrize(
    "value, message",
    [
        ("[[a, b]]", "tags_zh must be a list of names"),
        ("{a: [b, c]}", "tags_zh must map each tag to its Chinese name"),
    ],
)
def test_tags_zh_of_the_wrong_shape(tmp_path, value, message):
    folder = site_folder(
        tmp_path / "site", {"p.md": f"---\ntitle: T\ntags: [a, b]\ntags_zh: {value}\n---\n"}
    )
    assert f"p.md:4: error: not imported: {message}" in report_text(import_markdown([folder]))


@pytest.mark.parametrize(
    "value, message",
    [
        ("2.5", "series_position must be a whole number"),
        ("100000", "series_position runs from 1 to 32767"),
        ("0", "series_position runs from 1 to 32767"),
    ],
)
def test_series_positions_a_database_cannot_hold(tmp_path, value, message):
    folder = site_folder(tmp_path / "site", {
        "p.md": f"---\ntitle: T\ncategories: [S]\nseries_position: {value}\n---\n",
    })  # fmt: skip
    assert f"p.md:4: error: not imported: {message}" in report_text(import_markdown([folder]))


def test_a_mapping_where_names_belong_is_reported(tmp_path):
    folder = site_folder(tmp_path / "site", {"p.md": "---\ntitle: T\ntags: {a: 1}\n---\n"})
    assert "p.md:3: error: not imported: tags: names or a list of names, not a mapping" in (
        report_text(import_markdown([folder]))
    )


def damaged_zip(folder):
    """``folder`` zipped, plus a deflated member whose data is damaged, a file and a folder of
    the same name, and a file name of 300 bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("content/posts/damaged.md", GOOD.replace("Good", "Damaged") * 50)
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                bundle.write(path, path.relative_to(folder).as_posix())
        bundle.writestr("content/posts/clash.md", GOOD.replace("Good", "Clash file"))
        bundle.writestr("content/posts/clash.md/inner.md", GOOD.replace("Good", "Inner"))
        bundle.writestr("content/posts/" + "长" * 100 + ".md", GOOD.replace("Good", "Long"))
    data = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("content/posts/damaged.md")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 5 : start + 25] = b"\xff" * 20  # inside the deflated stream
    archive = io.BytesIO(bytes(data))
    archive.name = "damaged.zip"
    return archive


@pytest.mark.django_db(transaction=True)
def test_the_admin_import_reports_bad_files_and_members_and_imports_the_rest(client, tmp_path):
    client.force_login(author_with("add_note"))
    folder = site_folder(tmp_path / "site", {**BAD_FILES, "content/posts/media.md": MEDIA_LINK})
    page = import_through_admin(client, damaged_zip(folder))
    for name in ("year-one.md:3", "tags-zh.md:4", "infinite.md:4", "nested.md:2", "damaged.md"):
        assert f"content/posts/{name}" in page, name
    assert "content/posts/clash.md" in page
    assert "content/posts/damaged.md: error: not unpacked: damaged data" in page
    # Counted like every other error, and no line names the server's private folder.
    assert "; 7 errors," in page  # four files not imported, three members not unpacked
    assert str(settings.BIJI_PRIVATE_ROOT) not in page
    assert "长" * 100 + ".md" in page
    titles = set(Note.objects.values_list("title", flat=True))
    assert {"Good note", "Media link"} <= titles and len(titles) == 3
    assert len(titles & {"Clash file note", "Inner note"}) == 1  # the file or the folder
