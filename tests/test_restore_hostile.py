"""A backup is not trusted: a restore writes only inside MEDIA_ROOT and reads only inside the
backup, or refuses the whole restore before writing anything; it renders every stored HTML
again from its Markdown; it lets in no staff account that does not exist here unless asked
to; backups are private.

Each hostile backup is made by hand from a real one (``manage.py backup``) with the manifest's
hashes updated to match, as an attacker would: the hashes detect damage, not hostility.
"""

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import uuid
from pathlib import Path

import pytest

from tests.processes import manage, migrate, site_env

pytestmark = pytest.mark.slow

PLANTED = b"print('planted')\n"


@pytest.fixture(scope="module")
def real_backup(tmp_path_factory):
    """A backup of a migrated site with one media file, a superuser, and one of everything
    whose HTML is rendered from Markdown; its pages as they were, in ``pages.json`` beside it."""
    base = tmp_path_factory.mktemp("source")
    env = site_env(f"sqlite:///{base / 'source.sqlite3'}", base / "media")
    migrate(env)
    (base / "media" / "covers").mkdir(parents=True)
    (base / "media" / "covers" / "cover.png").write_bytes(b"\x89PNG not really an image")
    manage(env, "shell", "-c", CONTENT)
    manage(env, "shell", "-c", CREATE_USER % {"name": "author", "staff": True, "superuser": True})
    (base / "pages.json").write_text(json.dumps(pages(env)))
    manage(env, "backup", str(base / "backup"))
    return base / "backup"


# A glossary term, a series, a translated pair of notes that use the term (two headings each:
# a table of contents; a pair: blocks side by side), a page and the footer.
CONTENT = r"""
from django.utils import timezone
from blog.models import Note, Page, Series, SiteSettings, Status, Term
from blog.models.translations import link_translation
Term.objects.create(
    slug="warp", english="warp", chinese="线程束",
    definition_en="A group of **32** threads.", definition_zh="**32** 个线程。",
)
gpu = Series.objects.create(
    slug="gpu", title_zh="GPU 笔记", title_en="GPU notes", description="Notes on *GPUs*."
)
now = timezone.now()
en = Note.objects.create(
    title="Warps", slug="warps", language="en", status=Status.PUBLISHED, published_at=now,
    series=gpu, series_position=1,
    body="## Lockstep\n\nA warp runs in lockstep.\n\n## Divergence\n\nBranches split a warp.",
)
zh = Note.objects.create(
    title="线程束", slug="xian-cheng-shu", language="zh-hans", status=Status.PUBLISHED,
    published_at=now, body="## 同步\n\n线程束同步执行。\n\n## 分支\n\n分支会拆开线程束。",
)
link_translation(en, zh)  # the Chinese note follows into the series
Page.objects.create(title="About", slug="about", language="en", is_published=True,
                    body="About **this** site.")
site = SiteSettings.load()
site.footer = "Written *by hand*."
site.save()
"""

# Every page that prints stored HTML: the notes, side by side, the page, the series, the
# glossary, the footer (home) and the feed.
SHOW = """
import json
from pathlib import Path
from django.test import Client
from django.urls import reverse
from blog.models import Note, Page, Series, Term
client = Client()
urls = ["/", "/en/", "/series/", "/glossary/", "/en/glossary/", "/feed/", "/lang/en/feed/"]
for note in Note.objects.order_by("pk"):
    urls += [note.get_absolute_url(), reverse("blog:note-parallel", args=[note.slug])]
urls += [p.get_absolute_url() for p in Page.objects.order_by("pk")]
urls += [s.get_absolute_url() for s in Series.objects.order_by("pk")]
urls += [reverse("blog:glossary-term", args=[t.slug]) for t in Term.objects.order_by("pk")]
shown = {}
for url in urls:
    response = client.get(url, follow=True)
    shown[url] = [response.status_code, response.content.decode()]
Path(%(out)r).write_text(json.dumps(shown))
"""


def pages(env):
    """{url: [status, content]} of the site of ``env``, for every page in ``SHOW``."""
    out = Path(env["MEDIA_ROOT"]).parent / f"pages-{uuid.uuid4().hex}.json"
    manage(env, "shell", "-c", SHOW % {"out": str(out)})
    return json.loads(out.read_text())


CREATE_USER = """
from django.contrib.auth import get_user_model
get_user_model().objects.create_user(
    "%(name)s", password="pw-for-tests-only", is_staff=%(staff)s, is_superuser=%(superuser)s
)
"""


@pytest.fixture
def site(tmp_path):
    """The site restored into: an empty SQLite file, MEDIA_ROOT at site/media and, beside it,
    site/config, where a hostile backup aims."""
    root = tmp_path / "site"
    (root / "config").mkdir(parents=True)
    (root / "media").mkdir()
    (root / "database.sqlite3").touch()
    return root


def copy_of(real_backup, tmp_path):
    backup = tmp_path / "hostile"
    shutil.copytree(real_backup, backup, symlinks=True)
    return backup


def sha(data):
    return hashlib.sha256(data).hexdigest()


def edit_manifest(backup, change):
    path = backup / "manifest.json"
    os.chmod(path, 0o600)
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def plant_media(name, where):
    """A media entry ``name`` whose bytes the backup holds at ``where``, hashes matching."""

    def hostile(backup, site):
        target = where(backup, site)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(PLANTED)
        relative = os.path.relpath(target, backup)

        def change(manifest):
            manifest["media"][name(site)] = sha(PLANTED)
            manifest["files"][relative] = sha(PLANTED)

        edit_manifest(backup, change)

    return hostile


def link_media(backup, site):
    """A media file of the backup that is a link to a file outside it."""
    secret = site.parent / "secret.txt"
    secret.write_bytes(PLANTED)
    (backup / "media" / "covers" / "stolen.txt").symlink_to(secret)

    def change(manifest):
        manifest["media"]["covers/stolen.txt"] = sha(PLANTED)
        manifest["files"]["media/covers/stolen.txt"] = sha(PLANTED)

    edit_manifest(backup, change)


def list_outside_file(backup, site):
    """The manifest lists a file above the backup's folder."""
    outside = site.parent / "outside.txt"
    outside.write_bytes(PLANTED)
    edit_manifest(backup, lambda m: m["files"].update({"../outside.txt": sha(PLANTED)}))


def unchecked_media(backup, site):
    """A media entry the manifest's list of checked files does not cover."""
    (backup / "media" / "covers" / "extra.png").write_bytes(PLANTED)
    edit_manifest(backup, lambda m: m["media"].update({"covers/extra.png": sha(PLANTED)}))


def linked_media_folder(backup, site):
    """MEDIA_ROOT holds a link to a folder outside it, and the backup writes through it."""
    (site / "media" / "covers").symlink_to(site / "config")
    plant_media(lambda s: "covers/planted.py", lambda b, s: b / "media" / "covers" / "planted.py")(
        backup, site
    )


HOSTILE = {
    "dot-dot media name": plant_media(
        lambda s: "../config/planted.py", lambda b, s: b / "config" / "planted.py"
    ),
    "absolute media name": plant_media(
        lambda s: str(s / "config" / "planted.py"), lambda b, s: b / "media" / "planted.py"
    ),
    "media file linked outside": link_media,
    "manifest lists a file outside": list_outside_file,
    "media not among checked files": unchecked_media,
    "linked folder in MEDIA_ROOT": linked_media_folder,
}


def files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("attack", HOSTILE)
def test_a_hostile_backup_is_refused_before_anything_is_written(
    real_backup, tmp_path, site, attack
):
    backup = copy_of(real_backup, tmp_path)
    HOSTILE[attack](backup, site)
    env = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    before = {folder: files_under(site / folder) for folder in ("config", "media")}
    with pytest.raises(AssertionError) as refused:
        manage(env, "restore", str(backup))
    assert "Nothing was restored" in str(refused.value)
    assert {folder: files_under(site / folder) for folder in ("config", "media")} == before
    assert not (site / "config" / "planted.py").exists()
    with sqlite3.connect(site / "database.sqlite3") as db:  # not even migrated
        assert db.execute("select name from sqlite_master").fetchall() == []


def accounts(site):
    """(user name, staff, superuser, password hash) of every account of the restored site."""
    with sqlite3.connect(site / "database.sqlite3") as db:
        return db.execute(
            "select username, is_staff, is_superuser, password from auth_user order by username"
        ).fetchall()


def test_staff_accounts_not_here_are_left_out_unless_asked_for(real_backup, tmp_path, site):
    """A backup's staff and superusers that do not exist here are left out and named, with how
    to bring them; an account without staff rights comes in; ``--force --with-accounts``
    brings them in as they were, and the restore names who can now log in to the admin."""
    source = real_backup.parent
    env = site_env(f"sqlite:///{source / 'source.sqlite3'}", source / "media")
    manage(
        env, "shell", "-c", CREATE_USER % {"name": "intruder", "staff": True, "superuser": False}
    )
    manage(env, "shell", "-c", CREATE_USER % {"name": "reader", "staff": False, "superuser": False})
    manage(env, "backup", str(tmp_path / "with-intruder"))
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    migrate(target)

    out = manage(target, "restore", str(tmp_path / "with-intruder"))
    assert (
        "Left out the backup's accounts with staff or superuser rights that do not exist here: "
        "author (superuser), intruder (staff). To bring them in, restore again with --force "
        "--with-accounts" in out
    )
    assert "staff or superuser rights now: none." in out
    assert [name for name, *_ in accounts(site)] == ["reader"]

    out = manage(target, "restore", "--force", "--with-accounts", str(tmp_path / "with-intruder"))
    assert "Left out" not in out
    assert "staff or superuser rights now: author (superuser), intruder (staff)." in out
    assert [row[:3] for row in accounts(site)] == [
        ("author", 1, 1),
        ("intruder", 1, 0),
        ("reader", 0, 0),
    ]


def test_an_account_made_here_before_the_restore_is_kept_as_it_is(real_backup, site):
    """The operator's own account, made before restoring into an empty database, is the
    backup's account of the same name: it keeps its password and rights here, and the
    database still counts as empty."""
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    migrate(target)
    own = CREATE_USER % {"name": "author", "staff": True, "superuser": False}
    manage(target, "shell", "-c", own)
    before = accounts(site)
    out = manage(target, "restore", str(real_backup))
    assert "Accounts kept as they are here (the backup's copies were not loaded): author." in out
    assert "staff or superuser rights now: author (staff)." in out
    assert accounts(site) == before


PLANTED_SCRIPT = "<script>planted()</script>"
# Inside a paragraph, where a glossary tooltip takes the first paragraph of a definition from.
PLANTED_HANDLER = "<b onmouseover=planted()>!</b>"


def planted(html):
    return html.replace("</p>", PLANTED_HANDLER + "</p>", 1) + PLANTED_SCRIPT


def has_planted(page):
    return PLANTED_SCRIPT in page or "onmouseover=planted()" in page


def rewrite_data(backup, change):
    """Change the backup's data.json as an attacker would: the manifest's hash follows."""
    path = backup / "data.json"
    os.chmod(path, 0o600)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False))
    edit_manifest(backup, lambda m: m["files"].update({"data.json": sha(path.read_bytes())}))


def plant_script(data):
    """Script in every stored HTML of every model, and in every block side by side."""
    for entry in data["models"]:
        for index, name in enumerate(entry["fields"]):
            for row in entry["rows"]:
                if name.endswith("_html"):
                    row[index] = planted(row[index] or "")
                elif name == "parallel_blocks":
                    blocks = row[index] or [["p", "0", ""]]
                    row[index] = [[kind, key, planted(html)] for kind, key, html in blocks]


def test_stored_html_is_rendered_again_from_its_markdown(real_backup, tmp_path, site):
    """Script planted in every stored HTML of a backup (notes' bodies, tables of contents,
    covers and blocks, the page, the series, the glossary, the footer) is on no page after
    the restore: every page is byte for byte what the source site served."""
    backup = copy_of(real_backup, tmp_path)
    rewrite_data(backup, plant_script)
    assert PLANTED_SCRIPT in (backup / "data.json").read_text()
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    migrate(target)
    out = manage(target, "restore", str(backup))
    before, after = json.loads((real_backup.parent / "pages.json").read_text()), pages(target)
    assert [url for url, page in after.items() if has_planted(page[1])] == []
    assert {url: page[0] for url, page in before.items()} == dict.fromkeys(before, 200)
    assert [url for url in before if before[url] != after[url]] == []
    assert (
        "Rendered again from their Markdown: 1 glossary term, 2 notes, 1 page, 1 series, "
        "1 site settings." in out
    )


def test_a_dump_cut_short_is_refused_and_nothing_is_restored(real_backup, tmp_path, site):
    """data.json cut in the middle of its rows, the manifest's hash following: the restore,
    which reads it a row at a time, says it cannot read it instead of a parser's traceback,
    and no row comes in (the first reading, for the accounts, meets the cut before any row is
    inserted; one met later is taken back with the restore's transaction)."""
    backup = copy_of(real_backup, tmp_path)
    path = backup / "data.json"
    os.chmod(path, 0o600)
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) * 2 // 3])
    edit_manifest(backup, lambda m: m["files"].update({"data.json": sha(path.read_bytes())}))
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    with pytest.raises(AssertionError, match="data.json cannot be read"):
        manage(target, "restore", str(backup))
    with sqlite3.connect(site / "database.sqlite3") as db:  # migrated, and empty
        assert db.execute("select count(*) from blog_note").fetchone() == (0,)
        assert db.execute("select count(*) from auth_user").fetchone() == (0,)


def test_a_text_the_renderer_refuses_is_shown_as_text_and_named(real_backup, tmp_path, site):
    """A note the renderer refuses to render (its body over the size limit) does not stop
    the restore: its page shows its Markdown as escaped text, and the restore names it."""
    from blog import rendering

    if not hasattr(rendering, "RenderRefused"):
        pytest.skip("this renderer refuses no text")

    def oversize(data):
        plant_script(data)
        entry = next(entry for entry in data["models"] if entry["model"] == "blog.note")
        body, slug = entry["fields"].index("body"), entry["fields"].index("slug")
        row = next(row for row in entry["rows"] if row[slug] == "warps")
        row[body] = PLANTED_SCRIPT + "\n\n" + "warp " * (rendering.MAX_MARKDOWN_BYTES // 5)

    backup = copy_of(real_backup, tmp_path)
    rewrite_data(backup, oversize)
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    migrate(target)
    out = manage(target, "restore", str(backup))
    assert "The renderer refused 1 text: it shows its Markdown as plain text" in out
    assert "  note warps (body): " in out
    after = pages(target)
    assert [url for url, page in after.items() if has_planted(page[1])] == []
    assert {url: page[0] for url, page in after.items()} == dict.fromkeys(after, 200)
    note = after["/notes/warps/"][1]
    assert "<pre>&lt;script&gt;planted()&lt;/script&gt;\n\nwarp warp" in note


def test_backups_are_private_and_restored_media_are_not(real_backup, tmp_path, site):
    """Folders 700 and files 600 whatever the umask (data.json holds password hashes); the
    restored media get the permissions of uploads, so the web server can still serve them."""
    source = real_backup.parent
    env = site_env(f"sqlite:///{source / 'source.sqlite3'}", source / "media")
    old = os.umask(0o002)
    try:
        manage(env, "backup", str(tmp_path / "private"))
    finally:
        os.umask(old)
    modes = {
        str(path.relative_to(tmp_path)): stat.S_IMODE(path.stat().st_mode)
        for path in [tmp_path / "private", *(tmp_path / "private").rglob("*")]
    }
    assert {"private/data.json", "private/db.sqlite3", "private/media/covers/cover.png"} <= set(
        modes
    )
    wrong = {
        path: oct(mode)
        for path, mode in modes.items()
        if mode != (0o700 if (tmp_path / path).is_dir() else 0o600)
    }
    assert wrong == {}
    target = site_env(f"sqlite:///{site / 'database.sqlite3'}", site / "media")
    manage(target, "restore", str(tmp_path / "private"))
    restored = site / "media" / "covers" / "cover.png"
    assert stat.S_IMODE(restored.stat().st_mode) == 0o644  # Django's FILE_UPLOAD_PERMISSIONS
