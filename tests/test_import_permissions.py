"""An import does only what the importing user could do in the admin, and records it as theirs.

A staff user with nothing but ``blog.add_note`` could overwrite and unpublish a published note,
the About page, the site title and the navigation by importing a zip. Now each object an
import would create or change is checked with the admin's permission names; what is not
allowed is reported and skipped, the rest is imported, and every change carries the user in
its revision and in the admin's log. The command line stays the operator's tool.
"""

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry

from blog.models import NavigationLink, Note, Page, Series, SiteSettings, Status, Tag
from blog.models.revisions import versions_of
from blog.porting.run import import_markdown
from tests.factories import author_with, make_note, make_page, make_series, make_tag
from tests.imports import import_through_admin, site_folder, zipped

pytestmark = pytest.mark.django_db

NEW_NOTE = """---
title: 新的笔记
date: 2025-06-01 10:00:00
tags: [GPU]
tags_zh: [显卡]
categories: [New series]
---

正文。
"""

EXISTING_NOTE = """---
title: Existing, overwritten
slug: existing
lang: en
date: 2025-01-01 10:00:00
draft: true
---

Overwritten by an import.
"""

ABOUT_PAGE = """---
title: About, overwritten
slug: about
type: page
---

A page someone else wrote.
"""

NEW_PAGE = """---
title: Colophon
slug: colophon
type: page
---

Set in Noto.
"""

DATA_FILE = """site:
  title: Phished
navigation:
- position: 1
  label_zh: 登录
  label_en: Log in
  url: https://evil.example/login
"""


HOSTILE_SITE = {
    "content/posts/new.md": NEW_NOTE,
    "content/posts/existing.md": EXISTING_NOTE,
    "content/pages/about.md": ABOUT_PAGE,
    "content/pages/colophon.md": NEW_PAGE,
    "data/biji.yaml": DATA_FILE,
}


@pytest.fixture
def blog():
    """A published note, the About page, a tag without its Chinese name, the site settings
    and their navigation: what an add-only import tried to overwrite."""
    existing = make_note(title="Existing", slug="existing", language="en", body="Original.")
    about = make_page(title="About", slug="about", body="Original about.")
    make_tag(name="GPU", name_zh="")
    site = SiteSettings.objects.create(pk=1, title="My blog")
    NavigationLink.objects.create(site=site, position=1, label_zh="首页", label_en="Home", url="/")
    return existing, about


def text(lines):
    return "\n".join(lines)


def assert_nothing_overwritten(existing, about):
    existing.refresh_from_db()
    assert (existing.title, existing.status) == ("Existing", Status.PUBLISHED)
    assert existing.body == "Original."
    about.refresh_from_db()
    assert (about.title, about.body) == ("About", "Original about.")
    site = SiteSettings.objects.get()
    assert site.title == "My blog"
    assert [link.url for link in site.navigation.all()] == ["/"]
    assert not Page.objects.filter(slug="colophon").exists()
    assert Tag.objects.get(name="GPU").name_zh == ""


@pytest.mark.django_db(transaction=True)
def test_an_add_only_author_importing_through_the_admin_adds_a_note_and_nothing_else(
    client, blog, tmp_path
):
    existing, about = blog
    author = author_with("add_note")
    client.force_login(author)
    page = import_through_admin(client, zipped(site_folder(tmp_path / "site", HOSTILE_SITE)))

    assert_nothing_overwritten(existing, about)
    assert (
        "content/posts/existing.md: error: not imported: note existing exists: you may not "
        "change notes (needs blog.change_note)" in page
    )
    assert (
        "content/pages/about.md: error: not imported: page about exists: you may not change "
        "pages (needs blog.change_page)" in page
    )
    assert (
        "content/pages/colophon.md: error: not imported: page colophon: you may not add pages"
        in page
    )
    assert (
        "data/biji.yaml: error: not imported: site settings: you may not change site settings "
        "(needs blog.change_sitesettings)" in page
    )
    assert "you may not add series (needs blog.add_series)" in page

    new = Note.objects.get(title="新的笔记")
    assert new.status == Status.PUBLISHED and new.series is None
    [version] = versions_of(new)
    assert version.revision.user == author
    [entry] = LogEntry.objects.filter(object_id=str(new.pk))
    assert (entry.user, entry.action_flag) == (author, ADDITION)
    assert entry.get_change_message() == "Imported from content/posts/new.md"
    assert not Series.objects.exists()

    # The command line is the operator's tool: the same folder does everything, with no user.
    report = import_markdown([tmp_path / "site"])
    assert not report.errors, report.lines()
    existing.refresh_from_db()
    about.refresh_from_db()
    assert existing.status == Status.DRAFT and about.title == "About, overwritten"
    assert SiteSettings.objects.get().title == "Phished"
    assert LogEntry.objects.count() == 1  # the author's, none for the operator


def test_an_author_who_may_change_notes_updates_and_unpublishes_them_under_their_name(
    blog, tmp_path
):
    existing, about = blog
    author = author_with("add_note", "change_note")
    report = import_markdown([site_folder(tmp_path / "site", HOSTILE_SITE)], user=author)

    existing.refresh_from_db()
    assert existing.status == Status.DRAFT and existing.title == "Existing, overwritten"
    [version] = versions_of(existing)
    assert version.revision.user == author
    assert version.revision.comment == "Imported from content/posts/existing.md"
    entry = LogEntry.objects.get(object_id=str(existing.pk), content_type__model="note")
    assert (entry.user, entry.action_flag) == (author, CHANGE)
    about.refresh_from_db()
    assert about.title == "About"  # pages still need their own permission
    assert "page about exists: you may not change pages" in text(report.lines())


def test_each_kind_is_checked_with_its_own_permission(blog, tmp_path):
    existing, about = blog
    author = author_with(
        "add_note", "change_note", "add_page", "change_page", "add_series", "change_tag",
        "change_sitesettings", "add_navigationlink", "delete_navigationlink",
    )  # fmt: skip
    report = import_markdown([site_folder(tmp_path / "site", HOSTILE_SITE)], user=author)
    assert not report.errors, report.lines()
    about.refresh_from_db()
    assert about.title == "About, overwritten"
    assert Page.objects.get(slug="colophon").is_published
    assert SiteSettings.objects.get().title == "Phished"
    assert [link.url for link in NavigationLink.objects.all()] == ["https://evil.example/login"]
    assert Note.objects.get(title="新的笔记").series.title_en == "New series"
    assert Tag.objects.get(name="GPU").name_zh == "显卡"
    logged = {
        (entry.content_type.model, entry.action_flag)
        for entry in LogEntry.objects.filter(user=author)
    }
    assert {("note", ADDITION), ("note", CHANGE), ("page", ADDITION), ("page", CHANGE)} <= logged
    assert {("series", ADDITION), ("tag", CHANGE), ("sitesettings", CHANGE)} <= logged
    assert ("navigationlink", ADDITION) in logged


def test_linking_a_translation_to_a_note_the_author_may_not_change_is_skipped(tmp_path):
    original = make_note(title="Warp scheduling", slug="warp", language="en")
    folder = site_folder(tmp_path / "site", {
        "content/posts/warp.zh.md": "---\ntitle: Warp 调度\nslug: warp-zh\nlang: zh\n"
        "translationKey: warp\ndate: 2025-06-01\n---\n\n正文。\n",
    })  # fmt: skip
    report = import_markdown([folder], user=author_with("add_note"))
    note = Note.objects.get(slug="warp-zh")
    assert note.counterpart is None and original.counterpart is None
    assert "not linked to its translation warp: you may not change notes" in text(report.lines())
    Note.objects.filter(slug="warp-zh").delete()
    import_markdown([folder], user=author_with("add_note", "change_note", username="editor"))
    assert Note.objects.get(slug="warp-zh").counterpart == original


def test_a_data_file_is_checked_part_by_part_and_only_where_it_changes_the_site(blog, tmp_path):
    make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu")
    author = author_with("add_note", "add_tag")
    data = (
        "site:\n  title: My blog\nnavigation:\n- {position: 1, label_zh: 首页, label_en: Home, "
        "url: /}\nseries:\n- {slug: gpu, title_zh: 改名, title_en: Renamed}\n"
        "tags:\n- {slug: new-tag, name: New, name_zh: 新}\n"
    )
    folder = site_folder(tmp_path / "site", {"data/biji.yaml": data})
    lines = text(import_markdown([folder], user=author).lines())
    assert "series gpu: you may not change series (needs blog.change_series)" in lines
    assert Series.objects.get(slug="gpu").title_en == "GPU notes"
    assert Tag.objects.get(slug="new-tag").name_zh == "新"  # the part allowed went on
    # The settings and navigation already are what the file says: no permission needed.
    assert "site settings" not in lines.replace("updated: site settings, navigation", "")
    assert "data/biji.yaml: updated: site settings, navigation and tags" in lines
    assert [(e.content_type.model, e.action_flag) for e in LogEntry.objects.all()] == [
        ("tag", ADDITION)
    ]
