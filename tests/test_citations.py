"""Citing a note: its cite.bib, cite.json and cite.ris files read by the tools readers cite with
(bibtexparser, citeproc-py, rispy), the "Cite" box in the note's language, the citation meta tags
and the JSON-LD credits; translated articles cite their original's author, co-authors and
translators are named, drafts are not cited, and the files cost a constant few queries."""

import json
import warnings
from datetime import date, datetime, timedelta

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts
from bs4 import BeautifulSoup
from citeproc import Citation as CiteprocCitation
from citeproc import CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON
from django.utils import timezone

from blog.caching import site_settings
from blog.models import Language, SiteSettings
from blog.text.citation.record import Citation, Name, names
from blog.text.citation.reference import reference
from tests.factories import make_draft, make_note, make_scheduled
from tests.shared_data import module_data

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")

SITE = "https://notes.example.com"
LICENCE_URL = "https://creativecommons.org/licenses/by-sa/4.0/"
TYPES = {
    "bib": "application/x-bibtex; charset=utf-8",
    "json": "application/vnd.citationstyles.csl+json; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
}
# What TeX and BibTeX would read as markup, in both titles.
TITLE_ZH = "调度器的 50% 与 {花括号} & a_b #1"
TITLE_EN = "The scheduler: 50% & {braces}, a_b #1 \\ $5"


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = SITE


def day(month_day):
    """Ten in the morning of March ``month_day``, 2025, in the site's time zone."""
    return timezone.make_aware(datetime(2025, 3, month_day, 10))


@module_data
def cited_notes():
    """A Chinese note with co-authors and its English translation (a translator, a co-author),
    a translated article in each language, a draft and a scheduled note."""
    SiteSettings.objects.create(
        title="笔记 biji", author="Ada Lovelace", licence="CC BY-SA 4.0", licence_url=LICENCE_URL
    )
    chinese = make_note(
        title=TITLE_ZH, slug="scheduler", coauthors="李雷、韩梅梅", published_at=day(1)
    )
    english = make_note(
        title=TITLE_EN,
        slug="scheduler-en",
        language=Language.ENGLISH,
        translation=chinese,  # the translation holds the link
        translator="Jane Doe",
        coauthors="Grace Hopper",
        published_at=day(2),
    )
    source = {
        "source_title": "Outperforming cuBLAS on H100",
        "source_author": "Pranjal Shankhdhar",
        "source_url": "https://example.com/cublas",
        "source_date": date(2024, 12, 1),
    }
    article = make_note(
        title="Beating cuBLAS on H100",
        slug="beating-cublas",
        language=Language.ENGLISH,
        published_at=day(3),
        **source,
    )
    article_zh = make_note(
        title="在 H100 上超越 cuBLAS",
        slug="cublas-zh",
        translator="张三",
        published_at=day(4),
        **source,
    )
    make_draft(slug="a-draft")
    make_scheduled(slug="a-scheduled-note")
    return {"chinese": chinese, "english": english, "article": article, "article_zh": article_zh}


@pytest.fixture
def notes(cited_notes, db):
    return cited_notes.copy()


# The references the box shows and the files' data give, in the note's language.
REFERENCES = {
    "scheduler": (
        f"LOVELACE A, 李雷, 韩梅梅. {TITLE_ZH}[EB/OL]. 笔记 biji, 2025-03-01. "
        f"{SITE}/notes/scheduler/."
    ),
    "scheduler-en": (
        f"Lovelace, A., & Hopper, G. (2025, March 2). {TITLE_EN} (J. Doe, Trans.). 笔记 biji. "
        f"{SITE}/en/notes/scheduler-en/"
    ),
    "beating-cublas": (
        "Shankhdhar, P. (2025, March 3). Beating cuBLAS on H100 (A. Lovelace, Trans.). 笔记 biji. "
        f"{SITE}/en/notes/beating-cublas/ (Original work published 2024: "
        "“Outperforming cuBLAS on H100”, https://example.com/cublas)"
    ),
    "cublas-zh": (
        "SHANKHDHAR P. 在 H100 上超越 cuBLAS[EB/OL]. 张三, 译. 笔记 biji, 2025-03-04. "
        f"{SITE}/notes/cublas-zh/. 原文：Outperforming cuBLAS on H100[EB/OL]. (2024-12-01). "
        "https://example.com/cublas."
    ),
}


def soup(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return BeautifulSoup(response.content, "html.parser")


def cite_file(client, slug, extension, prefix=""):
    response = client.get(f"{prefix}/notes/{slug}/cite.{extension}")
    assert response.status_code == 200
    assert response["Content-Type"] == TYPES[extension]
    assert response["Content-Disposition"] == f'attachment; filename="{slug}.{extension}"'
    return response.content.decode("utf-8")


# Names and references, from the record alone.


def test_names_are_split_only_where_that_is_sensible():
    assert Name.parse("Ludwig van Beethoven") == Name(family="van Beethoven", given="Ludwig")
    assert Name.parse("Shankhdhar, Pranjal") == Name(family="Shankhdhar", given="Pranjal")
    assert Name.parse("Jean-Paul Sartre").initials() == "J.-P."
    for typed in ("林舟 Lin Zhou", "Ada", "3Blue1Brown", "The GPU Reading Group of Shanghai"):
        assert Name.parse(typed) == Name(literal=typed)


def test_references_without_a_date_or_author_and_with_many_authors():
    many = Citation(
        key="k", title="标题", language="zh-hans", url="https://x.example/", site="站",
        authors=names(["甲", "乙", "Jean-Paul Sartre", "丁"]),
    )  # fmt: skip
    assert reference(many) == "甲, 乙, SARTRE J-P, 等. 标题[EB/OL]. 站. https://x.example/."
    anonymous = Citation(key="k", title="Why?", language="en", url="https://x.example/", site="S")
    assert reference(anonymous) == "Why? (n.d.). S. https://x.example/"


# The "Cite" box.


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh-interface", "en-interface"])
@pytest.mark.parametrize("slug", sorted(REFERENCES))
def test_the_cite_box_shows_the_reference_in_the_notes_language(client, notes, slug, prefix):
    page = soup(client, f"{prefix}/notes/{slug}/")
    box = page.select_one("article details.cite-box")
    assert box is not None and box.get("open") is None, "a closed box at the article's end"
    assert box.summary.get_text() == ("Cite this note" if prefix else "引用本文")
    reference = box.select_one(".cite-reference")
    assert reference.get_text() == REFERENCES[slug]
    english = slug in ("scheduler-en", "beating-cublas")
    assert reference["lang"] == ("en" if english else "zh-Hans")
    if english:  # Chinese text in an English reference says so
        assert [span.get_text() for span in reference.select("span[lang='zh-Hans']")] == ["笔记"]
    links = {a.get_text(): a for a in box.select("a")}
    assert sorted(links) == ["BibTeX", "CSL-JSON", "RIS"]
    for label, extension in (("BibTeX", "bib"), ("CSL-JSON", "json"), ("RIS", "ris")):
        assert links[label]["href"] == f"{prefix}/notes/{slug}/cite.{extension}"
        assert links[label]["download"] == f"{slug}.{extension}"
    copy = box.select_one("button.cite-copy")
    assert copy.has_attr("hidden") and copy["data-copy"] == reference["id"]


def test_previews_of_drafts_show_no_cite_box_or_citation_tags(admin_client, notes):
    page = soup(admin_client, "/notes/a-draft/")
    assert page.select_one(".banner-draft")
    assert not page.select_one(".cite-box")
    assert not page.find("meta", attrs={"name": "citation_title"})


# The files, read by the tools readers cite with.


@pytest.mark.parametrize("extension", sorted(TYPES))
def test_each_file_is_the_same_in_both_interfaces(client, notes, extension):
    assert client.get(f"/en/notes/scheduler/cite.{extension}")["Content-Language"] == "zh-Hans"
    assert cite_file(client, "scheduler", extension) == cite_file(
        client, "scheduler", extension, prefix="/en"
    )


def parsed_bibtex(text):
    library = bibtexparser.parse_string(
        text, append_middleware=[SeparateCoAuthors(), SplitNameParts(), LatexDecodingMiddleware()]
    )
    assert not library.failed_blocks
    [entry] = library.entries
    return entry


def bibtex_names(parts):
    """bibtexparser's split names as "Family, Given", or as typed (braced: never split)."""
    return [
        f"{' '.join(name.last)}, {' '.join(name.first)}"
        if name.first
        else " ".join(name.last).strip("{}")
        for name in parts
    ]


def test_bibtex_parses_with_its_specials_escaped(client, notes):
    entry = parsed_bibtex(cite_file(client, "scheduler-en", "bib"))
    assert (entry.entry_type, entry.key) == ("online", "scheduler-en")
    fields = {field.key: field.value for field in entry.fields}
    assert fields["title"] == TITLE_EN
    assert bibtex_names(fields["author"]) == ["Lovelace, Ada", "Hopper, Grace"]
    assert bibtex_names(fields["translator"]) == ["Doe, Jane"]
    assert (fields["date"], fields["year"], fields["month"]) == ("2025-03-02", "2025", "3")
    assert fields["url"] == f"{SITE}/en/notes/scheduler-en/"
    assert fields["language"] == "english"
    assert fields["organization"] == "笔记 biji"
    assert fields["note"] == "Translated by Jane Doe."


def test_bibtex_keeps_chinese_as_utf8_and_names_unsplit(client, notes):
    text = cite_file(client, "scheduler", "bib")
    assert "李雷" in text and "\\u" not in text
    fields = {field.key: field.value for field in parsed_bibtex(text).fields}
    assert fields["title"] == TITLE_ZH
    assert bibtex_names(fields["author"]) == ["Lovelace, Ada", "李雷", "韩梅梅"]
    assert fields["language"] == "chinese"
    assert "translator" not in fields and "note" not in fields


def formatted_by_citeproc(text):
    """The bibliography citeproc-py makes of a CSL-JSON file, in the style it ships."""
    items = json.loads(text)
    with warnings.catch_warnings():  # citeproc-py predates CSL 1.0.2's "license": it skips it
        warnings.filterwarnings("ignore", "The following arguments .* unsupported: license")
        source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    bibliography.register(CiteprocCitation([CitationItem(items[0]["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


def test_csl_json_is_formatted_by_citeproc(client, notes):
    text = cite_file(client, "scheduler-en", "json")
    [item] = json.loads(text)
    assert item["type"] == "post-weblog"
    assert item["issued"] == {"date-parts": [[2025, 3, 2]]}
    assert item["language"] == "en"
    assert formatted_by_citeproc(text) == [
        f"Lovelace, A. and Hopper, G. (2025) “{TITLE_EN}”, 笔记 biji. Translated by J. Doe, "
        f"2 March. Available at: {SITE}/en/notes/scheduler-en/."
    ]


def test_csl_json_keeps_chinese_names_as_typed(client, notes):
    text = cite_file(client, "scheduler", "json")
    [item] = json.loads(text)
    assert item["author"] == [
        {"family": "Lovelace", "given": "Ada"},
        {"literal": "李雷"},
        {"literal": "韩梅梅"},
    ]
    assert item["container-title"] == "笔记 biji" and item["language"] == "zh-Hans"
    assert item["license"] == "CC BY-SA 4.0"
    assert formatted_by_citeproc(text) == [
        f"Lovelace, A., 李雷 and 韩梅梅 (2025) “{TITLE_ZH}”, 笔记 biji, 1 March. "
        f"Available at: {SITE}/notes/scheduler/."
    ]


def test_ris_is_read_by_rispy(client, notes):
    text = cite_file(client, "scheduler", "ris")
    assert text.startswith("TY  - BLOG\r\n") and text.endswith("ER  - \r\n")
    [record] = rispy.loads(text)
    assert record["type_of_reference"] == "BLOG"
    assert record["title"] == TITLE_ZH
    assert record["authors"] == ["Lovelace, Ada", "李雷", "韩梅梅"]
    assert (record["year"], record["date"]) == ("2025", "2025/03/01/")
    assert record["urls"] == [f"{SITE}/notes/scheduler/"]
    assert (record["language"], record["publisher"]) == ("zh-Hans", "笔记 biji")
    assert "subsidiary_authors" not in record


# A translated article cites its original.


def test_a_translated_article_cites_its_original_in_every_format(client, notes):
    entry = parsed_bibtex(cite_file(client, "beating-cublas", "bib"))
    fields = {field.key: field.value for field in entry.fields}
    assert bibtex_names(fields["author"]) == ["Shankhdhar, Pranjal"]
    assert bibtex_names(fields["translator"]) == [
        "Lovelace, Ada"
    ]  # the site's author: no one named
    assert fields["origtitle"] == "Outperforming cuBLAS on H100"
    assert fields["origdate"] == "2024-12-01"
    assert fields["note"] == (
        "Translated by Ada Lovelace. Original: Outperforming cuBLAS on H100, "
        "by Pranjal Shankhdhar, https://example.com/cublas."
    )

    [item] = json.loads(cite_file(client, "beating-cublas", "json"))
    assert item["author"] == [{"family": "Shankhdhar", "given": "Pranjal"}]
    assert item["translator"] == [{"family": "Lovelace", "given": "Ada"}]
    assert item["original-title"] == "Outperforming cuBLAS on H100"
    assert item["original-author"] == item["author"]
    assert item["original-date"] == {"date-parts": [[2024, 12, 1]]}

    [record] = rispy.loads(cite_file(client, "cublas-zh", "ris"))
    assert record["authors"] == ["Shankhdhar, Pranjal"]
    assert record["subsidiary_authors"] == ["张三"]  # the translator
    assert record["original_publication"] == "Outperforming cuBLAS on H100"
    assert record["notes"] == [
        "张三 译。原文：Outperforming cuBLAS on H100，Pranjal Shankhdhar，https://example.com/cublas。"
    ]


# Only published notes are cited.


@pytest.mark.parametrize("extension", sorted(TYPES))
@pytest.mark.parametrize("slug", ["a-draft", "a-scheduled-note", "no-such-note"])
def test_unpublished_or_unknown_notes_have_no_citation(
    client, admin_client, notes, slug, extension
):
    assert client.get(f"/notes/{slug}/cite.{extension}").status_code == 404
    assert client.get(f"/en/notes/{slug}/cite.{extension}").status_code == 404
    # Staff preview drafts on their page, but a draft is cited by no one.
    assert admin_client.get(f"/notes/{slug}/cite.{extension}").status_code == 404


# Cached like the note's page, at a constant cost.


def test_a_file_is_kept_by_the_page_cache_under_its_notes_part(client, notes, settings):
    settings.BIJI_EDGE_PURGER = "varnish"  # the response names its parts for an edge
    first = client.get("/notes/scheduler/cite.bib")
    assert first["X-Page-Cache"] == "miss"
    assert first["Cache-Control"].startswith("public")
    assert f"note:{notes['chinese'].pk}" in first["xkey"].split()
    assert client.get("/notes/scheduler/cite.bib")["X-Page-Cache"] == "hit"
    assert first["X-Robots-Tag"] == "noindex"


@pytest.mark.parametrize("slug", ["scheduler", "scheduler-en", "cublas-zh"])
def test_a_file_costs_the_same_few_queries_whoever_wrote_the_note(
    client, notes, slug, django_assert_num_queries
):
    """The content state, the note (the site's settings already kept, as in production), and the
    versions of the parts the file showed; a second format of the same note reads it from the
    note's kept citation."""
    site_settings()
    with django_assert_num_queries(3):
        client.get(f"/notes/{slug}/cite.bib")
    with django_assert_num_queries(2):
        client.get(f"/notes/{slug}/cite.ris")


def test_the_note_page_pays_nothing_for_its_cite_box(
    client, notes, settings, django_assert_num_queries
):
    """With the page cache off, a note's page kept for the content version costs the content
    state alone: the box is rendered into the kept article, the tags into the kept head."""
    settings.BIJI_PAGE_CACHE_SECONDS = 0
    site_settings()
    client.get("/notes/scheduler/")
    with django_assert_num_queries(1):
        page = BeautifulSoup(client.get("/notes/scheduler/").content, "html.parser")
    assert page.select_one(".cite-box .cite-reference").get_text() == REFERENCES["scheduler"]
    assert page.find("meta", attrs={"name": "citation_title"})


# What the page's head tells Google Scholar, Zotero and search engines.


def metas(page, name):
    return [tag["content"] for tag in page.find_all("meta", attrs={"name": name})]


def test_highwire_and_dublin_core_tags(client, notes):
    page = soup(client, "/en/notes/scheduler-en/")
    assert metas(page, "citation_title") == [TITLE_EN]
    assert page.find("meta", attrs={"name": "citation_title"})["lang"] == "en"
    assert metas(page, "citation_author") == ["Lovelace, Ada", "Hopper, Grace"]
    assert metas(page, "citation_publication_date") == ["2025/03/02"]
    assert metas(page, "citation_online_date") == ["2025/03/02"]
    assert metas(page, "citation_language") == ["en"]
    assert metas(page, "citation_publisher") == ["笔记 biji"]
    url = f"{SITE}/en/notes/scheduler-en/"
    assert metas(page, "citation_abstract_html_url") == metas(page, "citation_public_url") == [url]

    assert page.find("link", rel="schema.DC")["href"] == "http://purl.org/dc/elements/1.1/"
    assert metas(page, "DC.title") == [TITLE_EN]
    assert metas(page, "DC.creator") == ["Lovelace, Ada", "Hopper, Grace"]
    assert metas(page, "DC.contributor") == ["Doe, Jane"]
    assert metas(page, "DC.date") == ["2025-03-02"]
    assert metas(page, "DC.language") == ["en"]
    assert metas(page, "DC.identifier") == [url]
    assert metas(page, "DC.publisher") == ["笔记 biji"]
    assert metas(page, "DC.type") == ["Text"]
    assert metas(page, "DC.rights") == ["CC BY-SA 4.0"]


def test_a_translated_articles_tags_name_its_author_and_source(client, notes):
    page = soup(client, "/notes/cublas-zh/")
    assert metas(page, "citation_author") == metas(page, "DC.creator") == ["Shankhdhar, Pranjal"]
    assert metas(page, "DC.contributor") == ["张三"]
    assert metas(page, "DC.source") == ["https://example.com/cublas"]
    assert metas(page, "citation_language") == ["zh"] and metas(page, "DC.language") == ["zh-Hans"]


def test_without_a_licence_nothing_claims_one(client, notes):
    SiteSettings.objects.filter(pk=1).update(licence="", licence_url="")
    page = soup(client, "/notes/scheduler/")
    assert not metas(page, "DC.rights")
    assert "license" not in jsonld(page)
    [item] = json.loads(cite_file(client, "scheduler", "json"))
    assert "license" not in item


# JSON-LD.


def jsonld(page):
    return json.loads(page.find("script", type="application/ld+json").string)


def test_jsonld_credits_coauthors_translator_and_licence(client, notes):
    data = jsonld(soup(client, "/en/notes/scheduler-en/"))
    assert data["@type"] == "BlogPosting"
    assert data["author"] == [
        {"@type": "Person", "name": "Ada Lovelace"},
        {"@type": "Person", "name": "Grace Hopper"},
    ]
    assert data["translator"] == {"@type": "Person", "name": "Jane Doe"}
    assert data["license"] == LICENCE_URL
    assert data["translationOfWork"] == {
        "@type": "BlogPosting",
        "name": TITLE_ZH,
        "url": f"{SITE}/notes/scheduler/",
        "inLanguage": "zh-Hans",
    }
    assert "workTranslation" not in data


def test_jsonld_of_an_original_names_its_published_translation(client, notes):
    data = jsonld(soup(client, "/notes/scheduler/"))
    assert [person["name"] for person in data["author"]] == ["Ada Lovelace", "李雷", "韩梅梅"]
    assert "translator" not in data and "translationOfWork" not in data
    assert data["workTranslation"]["url"] == f"{SITE}/en/notes/scheduler-en/"
    assert data["workTranslation"]["name"] == TITLE_EN


def test_jsonld_of_an_original_hides_an_unpublished_translation(client, notes):
    english = notes["english"]
    english.published_at = timezone.now() + timedelta(days=1)
    english.save()
    data = jsonld(soup(client, "/notes/scheduler/"))
    assert "workTranslation" not in data


def test_jsonld_of_a_translated_article_keeps_its_source(client, notes):
    data = jsonld(soup(client, "/en/notes/beating-cublas/"))
    assert data["author"] == {"@type": "Person", "name": "Ada Lovelace"}
    assert data["translator"] == {"@type": "Person", "name": "Ada Lovelace"}
    assert data["translationOfWork"] == {
        "@type": "CreativeWork",
        "name": "Outperforming cuBLAS on H100",
        "author": {"@type": "Person", "name": "Pranjal Shankhdhar"},
        "url": "https://example.com/cublas",
    }
