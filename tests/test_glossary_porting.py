"""The glossary moves with the blog: one file in the Markdown export, read back by the import
(exactly, idempotently, problems reported), checked against the importing user's rights, and
kept by backup and restore."""

import json
import shutil
from pathlib import Path

import pytest
from django.contrib.admin.models import ADDITION, LogEntry

from blog.models import (
    ImportedMedia,
    LegacyPath,
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Tag,
    Term,
    TermUse,
)  # fmt: skip
from blog.models.revisions import versions_of
from blog.ops.backup.portable import dumped_models
from blog.ops.demo.loader import DEMO_DIR, load_demo
from blog.porting.export import export
from blog.porting.formats import FORMATS, HEXO, HUGO, JEKYLL
from blog.porting.run import import_markdown
from tests.factories import author_with, make_note
from tests.imports import site_folder
from tests.processes import manage

pytestmark = pytest.mark.django_db

GLOSSARY = "data/glossary.yaml"


@pytest.fixture
def glossary():
    """Two notes and two terms: one with everything a term can have, one with the least."""
    warps = make_note(slug="warps", body="一个 warp 有 32 个 thread。\n")
    warps_en = make_note(slug="warps-en", language="en", body="A warp is 32 threads.\n")
    warp = Term.objects.create(
        slug="warp",
        english="warp",
        chinese="线程束",
        english_variants="warps, Warps",  # the same form twice, case aside: kept once
        chinese_variants="warp 束\n",
        keep_in_english=True,
        definition_en="32 threads issued together.\r\n\r\nSee `__shfl_sync`. \n",
        definition_zh="一起发射的 32 个线程。",
    )
    warp.explained_in.set([warps_en, warps])
    Term.objects.create(slug="tensor-core", english="tensor core")
    return warp


def empty_database(media_root=None, site=False):
    """Remove everything the test wrote (and nothing else): notes and terms, tags and series;
    ``site``: the site settings and navigation too (the demo's); files under ``media_root``."""
    for model in (LegacyPath, ImportedMedia, Term, Note, Page, Series, Tag):
        model.objects.all().delete()
    if site:
        NavigationLink.objects.all().delete()
        SiteSettings.objects.all().delete()
    if media_root:
        shutil.rmtree(media_root, ignore_errors=True)


def files(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(Path(folder).rglob("*"))
        if path.is_file()
    }


def term_state():
    return {
        term.slug: (
            term.english, term.chinese, term.english_variants, term.chinese_variants,
            term.keep_in_english, term.definition_en, term.definition_zh,
            term.definition_en_html, term.definition_zh_html,
            sorted(term.explained_in.values_list("slug", flat=True)),
        )
        for term in Term.objects.all()
    }  # fmt: skip


def lines(report):
    return "\n".join(report.lines())


# --- the file ---------------------------------------------------------------------------------


def test_the_export_writes_the_glossary_as_one_readable_file(glossary, tmp_path):
    export(tmp_path)
    assert (tmp_path / GLOSSARY).read_text("utf-8") == (
        "# biji's glossary: one entry per term, in slug order (see docs/moving.md).\n"
        "terms:\n"
        "- slug: tensor-core\n"
        "  english: tensor core\n"
        "- slug: warp\n"
        "  english: warp\n"
        "  chinese: 线程束\n"
        "  english_variants: [warps]\n"
        "  chinese_variants: [warp 束]\n"
        "  keep_in_english: true\n"
        "  definition_en: |-\n"
        "    32 threads issued together.\n"
        "\n"
        "    See `__shfl_sync`.\n"
        "  definition_zh: 一起发射的 32 个线程。\n"
        "  explained_in: [warps, warps-en]\n"
    )


def test_each_format_keeps_it_beside_its_data_file(glossary, tmp_path):
    for fmt in (HUGO, HEXO, JEKYLL):
        export(tmp_path / fmt.name, fmt)
    assert (tmp_path / "hugo/data/glossary.yaml").is_file()
    assert (tmp_path / "hexo/source/_data/glossary.yaml").is_file()
    assert (tmp_path / "jekyll/_data/glossary.yaml").is_file()


def test_a_blog_without_terms_exports_no_glossary_file(tmp_path):
    make_note(slug="alone")
    assert export(tmp_path)["terms"] == 0
    assert not (tmp_path / GLOSSARY).exists()


# --- the round trip ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["hugo", "jekyll"])
def test_export_import_export_is_byte_identical(glossary, fmt, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    export(first, FORMATS[fmt])
    empty_database()
    report = import_markdown([first])
    assert not report.problems, lines(report)
    assert report.counts["created"] == 4  # two notes, two terms
    export(second, FORMATS[fmt])
    assert files(first) == files(second)


def test_imported_notes_are_rendered_with_the_imported_terms_marked(glossary, tmp_path):
    export(tmp_path)
    empty_database()
    import_markdown([tmp_path])
    note = Note.objects.get(slug="warps-en")
    assert 'href="/en/glossary/#warp"' in note.body_html
    assert TermUse.objects.filter(note=note, term__slug="warp").exists()


@pytest.mark.slow
def test_the_demo_blog_round_trips_with_its_glossary(tmp_path, settings):
    load_demo()
    first, second = tmp_path / "first", tmp_path / "second"
    export(first)
    before = term_state()
    empty_database(settings.MEDIA_ROOT, site=True)
    report = import_markdown([first])
    assert not report.errors, lines(report)
    assert report.counts["created"] == 15 + len(before)  # 13 notes, 2 pages and the terms
    assert term_state() == before
    export(second)
    assert files(first) == files(second)


def test_the_demo_s_glossary_file_is_what_the_export_writes(tmp_path):
    """The demo's glossary is in the export's format: the import reads it as it reads an
    export, and exporting the demo gives the file back byte for byte."""
    load_demo()
    export(tmp_path)
    assert (tmp_path / GLOSSARY).read_bytes() == (DEMO_DIR / "glossary.yaml").read_bytes()
    report = import_markdown([tmp_path])
    assert not report.problems, lines(report)
    assert report.counts["unchanged"] == 15 + Term.objects.count()


# --- importing again --------------------------------------------------------------------------


def test_importing_again_changes_nothing(glossary, tmp_path):
    export(tmp_path)
    updated_at = dict(Term.objects.values_list("slug", "updated_at"))
    report = import_markdown([tmp_path])
    assert f"{GLOSSARY}: unchanged: glossary term warp" in lines(report)
    assert f"{GLOSSARY}: unchanged: glossary term tensor-core" in lines(report)
    assert not report.problems and not report.counts["created"]
    assert dict(Term.objects.values_list("slug", "updated_at")) == updated_at
    assert not versions_of(glossary)


def test_a_term_changed_in_the_file_is_updated_by_slug(glossary, tmp_path):
    export(tmp_path)
    path = tmp_path / GLOSSARY
    text = path.read_text("utf-8").replace("一起发射的", "同时发射的")
    path.write_text(text.replace("[warps, warps-en]", "[warps-en]"), "utf-8")
    report = import_markdown([tmp_path])
    assert f"{GLOSSARY}: updated: glossary term warp" in lines(report)
    assert f"{GLOSSARY}: unchanged: glossary term tensor-core" in lines(report)
    warp = Term.objects.get(slug="warp")
    assert warp.definition_zh == "同时发射的 32 个线程。"
    assert "同时发射的" in warp.definition_zh_html
    assert list(warp.explained_in.values_list("slug", flat=True)) == ["warps-en"]
    assert Term.objects.count() == 2
    [version] = versions_of(warp)
    assert version.revision.comment == f"Imported from {GLOSSARY}"


def test_a_dry_run_writes_no_term(glossary, tmp_path):
    export(tmp_path)
    empty_database()
    report = import_markdown([tmp_path], dry_run=True)
    assert f"{GLOSSARY}: would be created: glossary term warp" in lines(report)
    assert not Term.objects.exists()


# --- problems ---------------------------------------------------------------------------------

BAD_GLOSSARY = """terms:
- slug: good
  english: good term
  explained_in: [known, nowhere]
- just a string
- english: no slug
- slug: nameless
  definition_en: A term without a name.
- slug: wrong-kinds
  english: wrong kinds
  english_variants: {a: b}
- slug: unsure
  english: unsure
  keep_in_english: maybe
- slug: good
  english: given twice
- slug: Not a slug!
  english: bad slug
- slug: extra
  english: extra
  colour: red
"""


def test_bad_entries_are_reported_at_their_line_and_the_others_imported(tmp_path):
    make_note(slug="known")
    folder = site_folder(tmp_path / "site", {GLOSSARY: BAD_GLOSSARY})
    report = import_markdown([folder])
    text = lines(report)
    for problem in (
        f"{GLOSSARY}:5: error: glossary entry 2: not a mapping of keys to values",
        f"{GLOSSARY}:6: error: glossary entry 3: no slug",
        f"{GLOSSARY}:7: error: glossary term nameless: needs a Chinese or an English form",
        f"{GLOSSARY}:9: error: glossary term wrong-kinds: english_variants must be a list of names",
        f"{GLOSSARY}:12: error: glossary term unsure: keep_in_english must be true or false",
        f"{GLOSSARY}:15: error: glossary term good: given twice; the first one is imported",
        f"{GLOSSARY}:17: error: not imported: glossary term Not a slug!: ",
        f"{GLOSSARY}:19: warning: glossary term extra: “colour”: not read (not a key biji reads)",
        f"{GLOSSARY}:2: warning: glossary term good: explained_in: no note nowhere here: not "
        "linked",
    ):
        assert problem in text, text
    assert sorted(Term.objects.values_list("slug", flat=True)) == ["extra", "good"]
    good = Term.objects.get(slug="good")
    assert good.english == "good term"
    assert list(good.explained_in.values_list("slug", flat=True)) == ["known"]


@pytest.mark.parametrize(
    "content, problem",
    [
        ("terms: [\n", f"{GLOSSARY}:2: error: not imported: not valid YAML"),
        ("- a list\n", f"{GLOSSARY}:1: error: not imported: a glossary file holds “terms:”"),
        ("site: {}\n", f"{GLOSSARY}:1: error: not imported: a glossary file holds “terms:”"),
    ],
)
def test_a_file_that_is_no_glossary_is_reported_and_the_notes_imported(content, problem, tmp_path):
    note = "---\ntitle: A note\nslug: a-note\n---\n\nText.\n"
    folder = site_folder(tmp_path / "site", {GLOSSARY: content, "content/posts/a-note.md": note})
    report = import_markdown([folder])
    assert problem in lines(report)
    assert Note.objects.filter(slug="a-note").exists()
    assert not Term.objects.exists()


# --- who imports ------------------------------------------------------------------------------


def test_an_author_without_the_glossary_permissions_imports_no_term(glossary, tmp_path):
    export(tmp_path)
    path = tmp_path / GLOSSARY
    path.write_text(path.read_text("utf-8").replace("一起发射的", "改过的"), "utf-8")
    Term.objects.filter(slug="tensor-core").delete()
    author = author_with("add_note", "change_note")
    report = import_markdown([tmp_path], user=author)
    text = lines(report)
    assert (
        f"{GLOSSARY}:3: error: not imported: glossary term tensor-core: you may not add glossary "
        "terms (needs blog.add_term)"
    ) in text
    assert (
        "glossary term warp exists: you may not change glossary terms (needs blog.change_term)"
    ) in text
    assert not Term.objects.filter(slug="tensor-core").exists()
    assert Term.objects.get(slug="warp").definition_zh == "一起发射的 32 个线程。"


def test_an_author_who_may_add_terms_adds_them_under_their_name(glossary, tmp_path):
    export(tmp_path)
    empty_database()
    author = author_with("add_note", "add_term")
    report = import_markdown([tmp_path], user=author)
    assert f"{GLOSSARY}: created: glossary term warp" in lines(report)
    assert not [p for p in report.problems if p.source == GLOSSARY], lines(report)
    warp = Term.objects.get(slug="warp")
    assert sorted(warp.explained_in.values_list("slug", flat=True)) == ["warps", "warps-en"]
    [version] = versions_of(warp)
    assert version.revision.user == author
    entry = LogEntry.objects.get(object_id=str(warp.pk), content_type__model="term")
    assert (entry.user, entry.action_flag) == (author, ADDITION)


# --- backup and restore -----------------------------------------------------------------------


def test_the_backup_dump_holds_terms_their_uses_and_the_notes_that_explain_them():
    labels = {model._meta.label_lower for model in dumped_models()}
    assert {"blog.term", "blog.termuse", "blog.term_explained_in"} <= labels


TERMS = """
import json
from blog.models import Term, TermUse
print(json.dumps({
    "terms": [
        [t.slug, t.english, t.chinese, t.english_variants, t.chinese_variants,
         t.keep_in_english, t.definition_en, t.definition_zh, t.definition_en_html,
         t.definition_zh_html, t.created_at.isoformat(), t.updated_at.isoformat(),
         sorted(t.explained_in.values_list("slug", flat=True))]
        for t in Term.objects.order_by("slug")
    ],
    "uses": sorted(TermUse.objects.values_list("note__slug", "term__slug")),
}))
"""


def terms_in(env):
    return json.loads(manage(env, "shell", "-c", TERMS).strip().splitlines()[-1])


@pytest.mark.slow
def test_terms_survive_a_backup_and_restore(backed_up_demo):
    before = terms_in(backed_up_demo.source)
    assert len(before["terms"]) >= 20 and before["uses"]
    assert terms_in(backed_up_demo.target) == before
