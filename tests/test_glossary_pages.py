"""The glossary pages (/glossary/, /en/glossary/, a page per term): every term filed under its
initial in the interface's language (pinyin for Chinese, like a printed 索引), with its other
form, accepted spellings, definition (the other language's when it has none here) and the
published notes that explain or use it, each translated pair once; in the sitemap and the
footer, within the query budget, and cached until the glossary or a note it shows changes."""

from datetime import timedelta

import pytest
from bs4 import BeautifulSoup

from blog.caching import pages as page_cache
from blog.caching import site_settings
from blog.models import Language, Note, SiteSettings, Term, TermUse
from tests.factories import make_draft, make_note

HEADER = page_cache.HEADER


def make_glossary():
    """Six terms (one without a Chinese form, one without an English one, definitions missing
    in either language) and the notes that use them: a translated pair, a note explaining a
    term, a draft, and a pair whose English note is a draft."""
    pair_zh = make_note(title="线程束调度", slug="warp-zh", body="每个线程束有 32 个线程。")
    pair_en = make_note(
        title="Warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        body="Each warp has 32 threads.",
    )
    pair_zh.translation = pair_en
    pair_zh.save()
    occupancy_note = make_note(
        title="占用率与寄存器",
        slug="occupancy-zh",
        body="占用率取决于线程束和寄存器。",
        published_ago=timedelta(days=2),
    )
    draft = make_draft(title="草稿：线程束", slug="draft-warp", body="线程束")
    shared_zh = make_note(
        title="共享内存入门", slug="smem-zh", body="共享内存很快。", published_ago=timedelta(days=3)
    )
    shared_en = make_draft(
        title="Shared memory primer",
        slug="smem-en",
        language=Language.ENGLISH,
        body="Shared memory is fast.",
    )
    shared_en.translation = shared_zh
    shared_en.save()
    terms = {
        "warp": Term.objects.create(
            english="warp",
            chinese="线程束",
            english_variants="warps",
            chinese_variants="warp 束",
            definition_zh="一组同时执行的 **32** 个线程。",
            definition_en="A group of **32** threads that execute together.",
        ),
        "occupancy": Term.objects.create(
            english="occupancy", chinese="占用率", definition_en="How many warps a unit holds."
        ),
        "tensor-core": Term.objects.create(
            english="tensor core", keep_in_english=True, definition_en="A matrix unit."
        ),
        "cta": Term.objects.create(english="CTA", chinese="线程块", definition_zh="线程的块。"),
        "shared-memory": Term.objects.create(
            english="shared memory", chinese="共享内存", definition_zh="一个块内共享的内存。"
        ),
        "spill": Term.objects.create(chinese="寄存器溢出", slug="spill", definition_zh="溢出。"),
    }
    uses = [
        (pair_zh, "warp"),
        (pair_en, "warp"),
        (occupancy_note, "warp"),
        (occupancy_note, "occupancy"),
        (draft, "warp"),
        (shared_en, "shared-memory"),  # only the draft says so: its published pair is listed
    ]
    for note, slug in uses:
        TermUse.objects.get_or_create(note=note, term=terms[slug])
    terms["occupancy"].explained_in.add(occupancy_note)
    return terms


@pytest.fixture
def glossary(db):
    return make_glossary()


def soup(response):
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def filed(page):
    """[(initial, [slug, …]), …] as the page groups the terms."""
    return [
        (group.h2.get_text(), [term["id"] for term in group.select(".glossary-term")])
        for group in page.select(".glossary-group")
    ]


def term(page, slug):
    return page.select_one(f".glossary-term[id='{slug}']")


def note_titles(entry, label_class="term-notes"):
    return [[a.get_text() for a in line.select("a")] for line in entry.select(f".{label_class}")]


def test_the_chinese_glossary_is_filed_by_pinyin_initial(client, glossary):
    page = soup(client.get("/glossary/"))
    # 共享内存 gòng, 寄存器溢出 jì, tensor core (no Chinese form: its English initial),
    # 线程块 xiàn chéng kuài before 线程束 xiàn chéng shù, 占用率 zhàn.
    assert filed(page) == [
        ("G", ["shared-memory"]),
        ("J", ["spill"]),
        ("T", ["tensor-core"]),
        ("X", ["cta", "warp"]),
        ("Z", ["occupancy"]),
    ]
    names = [dfn.get_text() for dfn in page.select(".glossary-term dfn")]
    assert names == ["共享内存", "寄存器溢出", "tensor core", "线程块", "线程束", "占用率"]


def test_the_english_glossary_is_filed_by_english_initial(client, glossary):
    page = soup(client.get("/en/glossary/"))
    # 寄存器溢出 has no English form: filed by its pinyin, jì.
    assert filed(page) == [
        ("C", ["cta"]),
        ("J", ["spill"]),
        ("O", ["occupancy"]),
        ("S", ["shared-memory"]),
        ("T", ["tensor-core"]),
        ("W", ["warp"]),
    ]


@pytest.mark.parametrize("url", ["/glossary/", "/en/glossary/"])
def test_the_index_of_initials_leads_to_each_group(client, glossary, url):
    page = soup(client.get(url))
    links = page.select(".glossary-index a")
    assert [a.get_text() for a in links] == [initial for initial, _ in filed(page)]
    for link in links:
        target = page.find(id=link["href"].removeprefix("#"))
        assert target is not None and target.get_text() == link.get_text()


def test_each_term_has_its_anchor_and_its_page(client, glossary):
    page = soup(client.get("/en/glossary/"))
    warp = term(page, "warp")
    assert warp.select_one("dfn a")["href"] == "/en/glossary/warp/"
    ids = [element["id"] for element in page.select("[id]")]
    assert len(ids) == len(set(ids))


def test_a_term_shows_its_other_form_and_accepted_spellings(client, glossary):
    warp = term(soup(client.get("/glossary/")), "warp")
    dfn, other = warp.select_one("dfn"), warp.select_one("dt .other-name")
    assert (dfn.get_text(), dfn["lang"]) == ("线程束", "zh-Hans")
    assert (other.get_text(), other["lang"]) == ("warp", "en")
    variants = [(span.get_text(), span["lang"]) for span in warp.select(".term-variants span")]
    assert variants == [("warp 束", "zh-Hans"), ("warps", "en")]  # the interface's first
    definition = warp.select_one(".term-definition")
    assert definition["lang"] == "zh-Hans" and "<strong>32</strong>" in str(definition)


def test_a_missing_name_or_definition_falls_back_to_the_other_language(client, glossary):
    chinese = soup(client.get("/glossary/"))
    tensor = term(chinese, "tensor-core")
    assert tensor.select_one("dfn")["lang"] == "en" and not tensor.select("dt .other-name")
    assert "中文里可保留英文写法。" in tensor.get_text()
    occupancy = term(chinese, "occupancy").select_one(".term-definition")
    assert occupancy["lang"] == "en" and "How many warps" in occupancy.get_text()
    english = soup(client.get("/en/glossary/"))
    spill = term(english, "spill")
    assert spill.select_one("dfn")["lang"] == "zh-Hans"
    shared = term(english, "shared-memory").select_one(".term-definition")
    assert shared["lang"] == "zh-Hans" and "共享" in shared.get_text()


def test_notes_are_listed_once_per_pair_in_the_interfaces_language(client, glossary):
    chinese = term(soup(client.get("/glossary/")), "warp")
    assert note_titles(chinese) == [["线程束调度", "占用率与寄存器"]]
    english = term(soup(client.get("/en/glossary/")), "warp")
    assert note_titles(english) == [["Warp scheduling", "占用率与寄存器"]]
    link = english.select(".term-notes a")[1]
    assert link["href"] == "/en/notes/occupancy-zh/" and link["lang"] == "zh-Hans"
    assert english.select_one(".lang-marker")  # a Chinese note in the English list


def test_notes_explaining_a_term_come_first_and_once(client, glossary):
    occupancy = term(soup(client.get("/en/glossary/")), "occupancy")
    lines = occupancy.select(".term-notes")
    assert len(lines) == 1 and "Explained in" in lines[0].get_text()
    assert note_titles(occupancy) == [["占用率与寄存器"]]


def test_drafts_are_never_listed_but_their_published_pair_is(client, glossary):
    for url in ("/glossary/", "/en/glossary/", "/glossary/warp/", "/en/glossary/shared-memory/"):
        html = client.get(url).content.decode()
        assert "草稿" not in html and "Shared memory primer" not in html, url
    for url in ("/glossary/", "/en/glossary/"):
        assert note_titles(term(soup(client.get(url)), "shared-memory")) == [["共享内存入门"]]


def test_the_glossary_page_lists_a_few_notes_and_links_the_rest(client, glossary):
    warp = Term.objects.get(slug="warp")
    for n in range(7):
        note = make_note(title=f"更多线程束 {n}", slug=f"more-warp-{n}")
        TermUse.objects.create(note=note, term=warp)
    entry = term(soup(client.get("/glossary/")), "warp")
    assert len(entry.select(".term-notes a[lang]")) == 5
    assert entry.select_one(".more-notes")["href"] == "/glossary/warp/"
    assert len(soup(client.get("/glossary/warp/")).select(".term-note-list a")) == 9


def test_a_term_page_shows_both_definitions_and_its_notes(client, glossary):
    page = soup(client.get("/en/glossary/warp/"))
    assert page.h1.select_one("dfn").get_text() == "warp"
    assert page.select_one(".kicker a")["href"] == "/en/glossary/#warp"
    definitions = [(d["lang"], d.get_text()) for d in page.select(".term-definition")]
    assert [lang for lang, _text in definitions] == ["en", "zh-Hans"]  # the interface's first
    assert "threads that execute together" in definitions[0][1]
    assert "同时执行" in definitions[1][1]
    titles = [a.get_text() for a in page.select(".term-note-list a")]
    assert titles == ["Warp scheduling", "占用率与寄存器"]
    assert page.select_one('link[rel="canonical"]')["href"].endswith("/en/glossary/warp/")
    alternates = {link["hreflang"] for link in page.select('link[rel="alternate"][hreflang]')}
    assert {"zh-Hans", "en"} <= alternates


def test_a_term_without_notes_says_so(client, glossary):
    page = soup(client.get("/glossary/cta/"))
    assert page.select_one(".empty") and not page.select(".term-note-list")


@pytest.mark.parametrize("url", ["/glossary/no-such-term/", "/en/glossary/no-such-term/"])
def test_an_unknown_term_is_a_404(client, glossary, url):
    assert client.get(url).status_code == 404


def test_an_empty_glossary_says_so(client, db):
    page = soup(client.get("/en/glossary/"))
    assert page.select_one(".empty") and not page.select(".glossary-index")


@pytest.mark.parametrize("url", ["/glossary/", "/en/glossary/", "/glossary/term-7/"])
def test_constant_queries_whatever_the_glossary_holds(
    client, db, url, django_assert_max_num_queries
):
    """The content state, the terms, which notes use or explain which term, those notes, the
    versions of the parts the page showed: five, for 60 terms and 40 notes as for one."""
    notes = [make_note(title=f"笔记 {n}", slug=f"bulk-{n}") for n in range(40)]
    terms = Term.objects.bulk_create(
        [Term(english=f"term {n}", chinese=f"术语{n}", slug=f"term-{n}") for n in range(60)]
    )
    TermUse.objects.bulk_create(
        [
            TermUse(note=note, term=terms[(i + k) % 60])
            for i, note in enumerate(notes)
            for k in (0, 1)
        ]
    )
    for n in range(10):
        terms[n].explained_in.add(notes[n])
    site_settings()  # warm: the settings come from the cache, as they do in production
    with django_assert_max_num_queries(5):
        response = client.get(url)
    assert response.status_code == 200


def test_the_sitemap_lists_the_glossary_and_each_term_in_both_languages(client, glossary):
    index = client.get("/sitemap.xml").content.decode()
    assert "/sitemap-glossary.xml" in index
    sitemap = client.get("/sitemap-glossary.xml").content.decode()
    for path in ("/glossary/", "/en/glossary/", "/glossary/warp/", "/en/glossary/spill/"):
        assert f"{path}</loc>" in sitemap, path
    assert 'hreflang="en"' in sitemap


def test_an_empty_glossary_is_still_a_valid_sitemap(client, db):
    sitemap = client.get("/sitemap-glossary.xml").content.decode()
    assert sitemap.count("<url>") == 2 and "/en/glossary/</loc>" in sitemap


@pytest.mark.parametrize(("url", "glossary_url"), [("/", "/glossary/"), ("/en/", "/en/glossary/")])
def test_the_footer_links_the_glossary(client, db, url, glossary_url):
    footer = soup(client.get(url)).select_one("footer.site-footer")
    assert footer.select_one(f'a[href="{glossary_url}"]')


# --- cached pages follow every change (these commit, as production does) -------------------


def warm(client, url):
    client.get(url)
    response = client.get(url)
    assert response[HEADER] == "hit", url
    return response


def after(client, url):
    response = client.get(url)
    return response[HEADER], response.content.decode()


@pytest.fixture
def cached(transactional_db):
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    return make_glossary()


@pytest.mark.django_db(transaction=True)
def test_a_term_edit_shows_on_its_cached_pages(client, cached):
    for url in ("/glossary/", "/en/glossary/warp/"):
        warm(client, url)
    warp = Term.objects.get(slug="warp")
    warp.definition_zh = "一组锁步执行的线程（已修改）。"
    warp.definition_en = "Threads in lockstep (edited)."
    warp.save()
    header, html = after(client, "/glossary/")
    assert header == "miss" and "已修改" in html
    header, html = after(client, "/en/glossary/warp/")
    assert header == "miss" and "(edited)" in html


@pytest.mark.django_db(transaction=True)
def test_a_new_or_deleted_term_shows_on_the_cached_pages_and_sitemap(client, cached):
    for url in ("/en/glossary/", "/sitemap-glossary.xml"):
        warm(client, url)
    Term.objects.create(english="bank conflict", chinese="存储体冲突")
    assert "bank conflict" in after(client, "/en/glossary/")[1]
    assert "/glossary/bank-conflict/" in after(client, "/sitemap-glossary.xml")[1]
    warm(client, "/glossary/cta/")
    Term.objects.filter(slug="cta").delete()
    assert client.get("/glossary/cta/").status_code == 404
    assert 'id="cta"' not in after(client, "/en/glossary/")[1]


@pytest.mark.django_db(transaction=True)
def test_a_note_using_or_explaining_a_term_shows_on_the_cached_pages(client, cached):
    note = Note.objects.get(slug="smem-zh")
    cta = Term.objects.get(slug="cta")
    warm(client, "/glossary/")
    TermUse.objects.create(note=note, term=cta)
    assert note_titles(term(BeautifulSoup(after(client, "/glossary/")[1], "html.parser"), "cta"))
    warm(client, "/glossary/cta/")
    cta.explained_in.add(Note.objects.get(slug="warp-zh"))
    assert "线程束调度" in after(client, "/glossary/cta/")[1]
    cta.explained_in.clear()
    assert "线程束调度" not in after(client, "/glossary/cta/")[1]


@pytest.mark.django_db(transaction=True)
def test_a_note_starting_to_use_a_term_shows_on_the_cached_pages(client, cached):
    """The real path: the note's text names the term, its render records the use (a note the
    glossary did not show before)."""
    note = make_note(
        title="块的调度", slug="blocks", body="调度。", published_ago=timedelta(days=9)
    )
    warm(client, "/glossary/")
    note.body += "\n\n线程块之间不共享数据。"
    note.save()
    entry = term(BeautifulSoup(after(client, "/glossary/")[1], "html.parser"), "cta")
    assert note_titles(entry) == [["块的调度"]]


@pytest.mark.django_db(transaction=True)
def test_a_listed_note_renamed_or_unpublished_shows_on_the_cached_pages(client, cached):
    warm(client, "/glossary/")
    warm(client, "/glossary/warp/")
    note = Note.objects.get(slug="warp-zh")
    note.title = "线程束调度（修订）"
    note.save()
    assert "线程束调度（修订）" in after(client, "/glossary/")[1]
    note.status, note.published_at = "draft", None
    note.save()
    assert "线程束调度" not in after(client, "/glossary/warp/")[1]


@pytest.mark.django_db(transaction=True)
def test_an_edit_the_glossary_does_not_show_leaves_it_cached(client, cached):
    warm(client, "/glossary/")
    other = make_note(title="无关的笔记", slug="unrelated", published_ago=timedelta(days=9))
    warm(client, "/glossary/")  # a new note enters the lists: the glossary asks again once
    other.body = "改过的正文。"
    other.save()
    assert after(client, "/glossary/")[0] == "hit"
