"""The demo blog: ``manage.py load_demo`` is idempotent and loads what the README promises."""

import re
from datetime import timedelta
from io import StringIO

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from django.utils import timezone

from blog.models import (
    Language,
    NavigationLink,
    Note,
    Page,
    Series,
    SiteSettings,
    Status,
    Tag,
    Term,
    TermUse,
)
from blog.ops.demo.loader import DemoError, parse_document, parse_published, read_glossary
from tests.shared_data import module_data

pytestmark = pytest.mark.django_db

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def load():
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def snapshot():
    """Everything the demo loads, except the scheduled note's moving publication time."""
    now = timezone.now()
    notes = {
        n.slug: (
            n.title, n.language, n.status, n.body, n.body_html, n.summary,
            n.published_at if n.published_at and n.published_at <= now else None,
            n.series.slug if n.series else None, n.series_position,
            n.counterpart.slug if n.counterpart else None,
            sorted(t.slug for t in n.tags.all()),
            n.source_title, n.source_author, n.source_url, n.source_date,
        )
        for n in Note.objects.select_related("series", "translation")
    }  # fmt: skip
    terms = {
        t.slug: (
            t.english, t.chinese, t.english_variants, t.chinese_variants, t.keep_in_english,
            t.definition_en, t.definition_zh, t.definition_en_html, t.definition_zh_html,
            sorted(n.slug for n in t.explained_in.all()),
        )
        for t in Term.objects.prefetch_related("explained_in")
    }  # fmt: skip
    return {
        "counts": [
            m.objects.count()
            for m in (Note, Tag, Series, Page, NavigationLink, SiteSettings, Term, TermUse)
        ],
        "terms": terms,
        "term_uses": set(TermUse.objects.values_list("note__slug", "term__slug")),
        "notes": notes,
        "tags": set(Tag.objects.values_list("slug", "name", "name_zh")),
        "series": set(Series.objects.values_list("slug", "title_zh", "title_en", "description")),
        "pages": set(Page.objects.values_list("slug", "title", "body", "is_published")),
        "links": set(NavigationLink.objects.values_list("position", "label_zh", "url")),
    }


@module_data
def demo_loaded():
    """The demo blog, loaded once for the tests that read it (tests/shared_data.py)."""
    return load()


@pytest.fixture
def demo(demo_loaded):
    return demo_loaded.copy()


@pytest.mark.slow
def test_loading_twice_gives_the_same_data():
    load()
    first = snapshot()
    load()
    assert snapshot() == first
    assert first["counts"][0] >= 10


def test_summary_is_printed(demo):
    assert "Demo loaded: 13 notes (11 published, 1 draft, 1 scheduled)" in demo


def test_three_series_with_ordered_positions(demo):
    series = {s.slug: s for s in Series.objects.all()}
    assert {"gpu-notes", "parallel-computing", "essays"} <= series.keys()
    assert series["gpu-notes"].title_zh == "GPU 笔记"
    assert series["gpu-notes"].title_en == "GPU notes"
    for one in series.values():
        assert one.description and one.description_html
        # Per language: a translation holds its original's position.
        for language in ("zh-hans", "en"):
            positions = list(
                one.notes.filter(language=language)
                .order_by("series_position")
                .values_list("series_position", flat=True)
            )
            assert positions == list(range(1, len(positions) + 1)), (one.slug, language)
        assert one.notes.filter(language="zh-hans").count() >= 2


def test_bilingual_tags_with_ascii_slugs(demo):
    tags = Tag.objects.all()
    assert tags.count() >= 10
    for tag in tags:
        assert tag.name and tag.name_zh, tag
        assert SLUG.match(tag.slug), tag.slug
    assert Tag.objects.get(slug="scheduling").name_zh == "调度"
    assert all(note.tags.exists() for note in Note.objects.all())


def test_translation_pair_is_linked_both_ways(demo):
    chinese = Note.objects.get(slug="cuda-warp-scheduling")
    english = Note.objects.get(slug="cuda-warp-scheduling-en")
    assert (chinese.language, english.language) == (Language.CHINESE, Language.ENGLISH)
    assert chinese.counterpart == english
    assert english.counterpart == chinese


def test_translated_article_names_its_source(demo):
    article = Note.objects.get(slug="decode-gemv-worklog")
    assert article.is_translated_article
    assert article.source_author and article.source_title
    assert article.source_url.startswith("https://example.com/")
    assert article.source_date.isoformat() == "2025-12-20"
    assert article.tags.filter(slug="translation").exists()


def test_a_corrected_note_and_a_credited_translation(client, demo):
    """Issue 38's corrections and credits, as the demo shows them (tests/test_corrections.py)."""
    note = BeautifulSoup(client.get("/notes/cuda-warp-scheduling/").content, "html.parser")
    assert "64 个 warp" in note.select_one(".correction-line").get_text()
    assert note.select_one("#corrections li time")["datetime"].startswith("2025-06-02T09:15")
    article = client.get("/notes/decode-gemv-worklog/").content.decode()
    source = BeautifulSoup(article, "html.parser").select_one(".source-box").get_text()
    assert source.strip().endswith("译者：林舟。")


def test_draft_and_scheduled_notes_are_not_published(demo):
    published = Note.objects.published()
    draft = Note.objects.get(status=Status.DRAFT)
    scheduled = Note.objects.get(slug="nsys-trace-sql")
    assert scheduled.is_scheduled
    assert timedelta(days=29) < scheduled.published_at - timezone.now() < timedelta(days=32)
    assert draft not in published and scheduled not in published
    assert published.count() >= 8


def test_published_dates_spread_over_many_months(demo):
    months = {(n.published_at.year, n.published_at.month) for n in Note.objects.published()}
    years = {year for year, _ in months}
    assert len(months) >= 8 and len(years) >= 2


def test_a_demo_note_shows_updated_only_when_its_file_says_so(client, demo):
    updated = [note.slug for note in Note.objects.published() if note.updated_after_publication]
    assert updated == ["cuda-warp-scheduling"]  # "updated:" in its file: the one shown
    page = client.get("/notes/async-scheduling-inference-engine/").content.decode()
    assert "更新于" not in page
    assert "更新于" in client.get("/notes/cuda-warp-scheduling/").content.decode()


def test_bodies_exercise_the_renderer(demo):
    """The stored HTML of the demo notes shows every feature of the renderer, rendered."""
    notes = {n.slug: n for n in Note.objects.all()}
    assert all(len(n.plain_text) > 300 for n in notes.values())
    pages = {slug: BeautifulSoup(n.body_html, "html.parser") for slug, n in notes.items()}
    everything = BeautifulSoup("".join(n.body_html for n in notes.values()), "html.parser")

    # Every fenced code block is highlighted by Pygments (token spans), none left as bare text.
    fences = sum(len(re.findall(r"^```\w+", n.body, flags=re.MULTILINE)) for n in notes.values())
    blocks = everything.select("div.highlight pre")
    assert len(blocks) == fences >= 10
    tokens = [{c for span in b.select("span[class]") for c in span["class"]} for b in blocks]
    assert all(kinds - {"w", "filename"} for kinds in tokens)
    assert not everything.select("pre:not(div.highlight pre)")

    # Tables, task lists, admonitions.
    assert len(everything.select("table thead th")) >= 10
    assert everything.select_one("table tbody td")
    boxes = everything.select("li.task-list-item input[type=checkbox][disabled]")
    assert any(box.has_attr("checked") for box in boxes)
    assert any(not box.has_attr("checked") for box in boxes)
    assert everything.select_one("div.admonition.warning > p.admonition-title")

    for slug, page in pages.items():
        # Footnote references land on their footnote, and back.
        for ref in page.select("sup a.footnote-ref"):
            assert page.find(id=ref["href"][1:]), (slug, ref)
        for back in page.select("a.footnote-backref"):
            assert page.find(id=back["href"][1:]), (slug, back)
        # A table of contents links to headings of the same note.
        for link in page.select("nav.toc a[href]"):
            assert page.find(id=link["href"][1:]).name in {"h2", "h3", "h4"}, (slug, link)
        # No Markdown syntax left over.
        text = page.get_text()
        for marker in ("[TOC]", "[^", "!!! ", "$$", "```", "| --- |"):
            assert marker not in text, (slug, marker)
    assert sum(bool(page.select("sup a.footnote-ref")) for page in pages.values()) >= 2
    assert sum(bool(page.select("nav.toc a")) for page in pages.values()) >= 2
    assert len(everything.select("math[display=block]")) >= 2

    essay = pages["first-rainy-season"]
    assert essay.p and not essay.select("pre, table")
    assert notes["first-rainy-season"].series.slug == "essays"


def test_math_is_rendered_to_mathml(demo):
    note = Note.objects.get(slug="flashattention-tiling")
    assert "<math" in note.body_html
    assert "<math" in Note.objects.get(slug="parallel-computing-1").body_html


def test_code_is_highlighted_by_pygments(demo):
    note = Note.objects.get(slug="cuda-warp-scheduling")
    assert 'class="highlight"' in note.body_html


def test_about_page_site_settings_and_navigation(demo):
    about = Page.objects.published().get(slug="about")
    assert about.body_html
    site = SiteSettings.load()
    links = site.navigation_links
    assert site.title == "笔记 biji" and site.tagline_zh and site.tagline_en
    assert site.author and site.footer_html
    assert "/pages/about/" in [link.url for link in links]
    assert [link.position for link in links] == sorted(link.position for link in links)


def test_a_glossary_of_about_twenty_terms_the_notes_use(demo):
    """Every term is defined in both languages, used by the notes and marked in a published
    one, so the demo shows the glossary at work; the notes that explain a term name it."""
    terms = Term.objects.prefetch_related("explained_in")
    assert 20 <= len(terms) <= 30
    published = Note.objects.published()
    for term in terms:
        assert term.definition_en_html and term.definition_zh_html, term.slug
        assert SLUG.match(term.slug), term.slug
        assert TermUse.objects.filter(term=term).exists(), f"no note uses {term.slug}"
        anchor = f'glossary/#{term.slug}"'
        assert any(anchor in note.body_html for note in published), f"{term.slug} not marked"
        for note in term.explained_in.all():
            text = f"{note.title} {note.plain_text}".casefold()
            forms = term.forms(note.language)
            assert any(form.casefold() in text for form in forms), (term.slug, note.slug)
    assert "线程束 / warp" in [str(term) for term in terms]
    warp = Term.objects.get(slug="warp")
    assert sorted(note.slug for note in warp.explained_in.all()) == [
        "cuda-warp-scheduling",
        "cuda-warp-scheduling-en",
    ]
    assert Term.objects.get(slug="tensor-core").chinese == ""  # kept in English


def test_chinese_notes_mark_the_terms_they_keep_in_english(demo):
    note = Note.objects.get(slug="cuda-warp-scheduling")
    marks = BeautifulSoup(note.body_html, "html.parser").select("a.term-link")
    assert {"warp", "occupancy", "latency hiding"} <= {mark.get_text() for mark in marks}
    assert all(mark["href"].startswith("/glossary/#") for mark in marks)


def test_front_matter_parser_is_strict():
    good = "---\ntitle: 标题: 副标题\nslug: a\nlanguage: en\n---\nBody\n"
    doc = parse_document(good, "x.md", {"title", "slug", "language"}, {"title"})
    assert doc.meta["title"] == "标题: 副标题" and doc.body == "Body\n"
    for bad in (
        "title: no fence\n",
        "---\ntitle: a\nslug: b\nlanguage: en\n",  # no closing fence
        "---\ntitle: a\ntitle: b\nlanguage: en\n---\n",  # repeated key
        "---\ntitle: a\ncolour: red\nlanguage: en\n---\n",  # unknown key
        "---\ntitle: a\nlanguage: fr\n---\n",  # unknown language
        "---\nslug: a\nlanguage: en\n---\n",  # missing title
    ):
        with pytest.raises(DemoError):
            parse_document(bad, "x.md", {"title", "slug", "language"}, {"title"})


def test_published_times_are_local_or_relative(settings):
    now = timezone.now()
    fixed = parse_published("2025-03-14 09:30", now, "x.md")
    assert str(fixed.tzinfo) == settings.TIME_ZONE and (fixed.hour, fixed.minute) == (9, 30)
    assert parse_published("+30d", now, "x.md") - now > timedelta(days=30)
    assert parse_published("", now, "x.md") is None
    with pytest.raises(DemoError):
        parse_published("14/03/2025", now, "x.md")


def test_the_glossary_file_is_read_strictly(tmp_path):
    path = tmp_path / "glossary.yaml"
    path.write_text("terms:\n- slug: warp\n  english: warp\n", "utf-8")
    assert read_glossary(path) == [{"slug": "warp", "english": "warp"}]
    for bad in (
        "- slug: warp\n",  # no terms: key
        "terms:\n- english: warp\n",  # no slug
        "terms:\n- slug: warp\n",  # no form in either language
        "terms:\n- slug: warp\n  english: warp\n  colour: red\n",  # unknown key
        "terms:\n- slug: warp\n  english: warp\n- slug: warp\n  chinese: 线程束\n",  # twice
    ):
        path.write_text(bad, "utf-8")
        with pytest.raises(DemoError):
            read_glossary(path)
