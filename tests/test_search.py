"""Search: what readers find at /search/?q=, in which order, and that no query breaks the page.

Notes are created with their on-commit indexing executed, as after a real save; the index is
each database's own (FTS5 on SQLite, pg_trgm and GIN on PostgreSQL).
"""

from datetime import timedelta

import pytest
import time_machine
from bs4 import BeautifulSoup
from django.db import connection
from django.test import TestCase
from django.utils import timezone

from blog.models import Note, Status
from blog.search import query as search_query
from blog.search.highlight import snippet
from blog.search.index import rebuild
from blog.search.text import MAX_QUERY_CHARS, parse_query
from tests.factories import make_draft, make_note, make_scheduled, make_series, make_tag
from tests.search_costs import time_bound
from tests.shared_data import module_data

pytestmark = pytest.mark.django_db

GPU_BODY = (
    "在 H100 上，warp 调度器每个周期发射指令。我们把 GEMM 算子交给 cuBLAS，"
    "注意力用 FlashAttention-3。并行计算的瓶颈在访存。"
)


@pytest.fixture
def publish(django_capture_on_commit_callbacks):
    """``make_note`` with its after-commit indexing run, as after a real save."""

    def publish(*args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return make_note(*args, **kwargs)

    return publish


def found(client, q, path="/search/", **params):
    response = client.get(path, {"q": q, **params})
    assert response.status_code == 200
    return [note.slug for note in response.context["results"]]


@module_data
def gpu_notes():
    """Two published notes, indexed (after-commit work run, as ``publish`` runs it); written
    once for the module, each test's changes undone when it ends (tests/shared_data.py)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        make_note(slug="other", title="Essay", body="A quiet walk by the sea. 海边散步。")
        return make_note(slug="gpu", title="GPU 笔记", body=GPU_BODY)


@pytest.fixture
def gpu_note(gpu_notes, db):
    return gpu_notes.copy()


@pytest.mark.parametrize("q", ["调", "调度", "算子", "并行计算", "调度器", "访存"])
def test_one_and_two_character_chinese_terms_find_their_note(client, gpu_note, q):
    assert found(client, q) == ["gpu"]


@pytest.mark.parametrize(
    "q", ["cuBLAS", "cublas", "CUBLAS", "ｃｕＢＬＡＳ", "H100", "h100", "GEMM", "flashattention"]
)
def test_english_terms_match_whatever_the_case_or_width(client, gpu_note, q):
    assert found(client, q) == ["gpu"]


@pytest.mark.parametrize("q", ['"FlashAttention 3"', "FlashAttention 3", "flashattention-3"])
def test_a_phrase_or_its_words(client, gpu_note, q):
    assert found(client, q) == ["gpu"]


def test_several_words_must_all_match(client, publish):
    publish(slug="both", title="Hopper", body="H100 上的调度。")
    publish(slug="h100-only", title="Hopper", body="H100 的显存。")
    publish(slug="zh-only", title="Ampere", body="A100 上的调度。")
    assert found(client, "H100 调度") == ["both"]
    assert found(client, "调度 H100") == ["both"]
    assert sorted(found(client, "调度")) == ["both", "zh-only"]
    assert found(client, "H100 调度 quantum") == []


def test_words_of_one_or_two_letters_match_whole_words(client, publish):
    publish(slug="fa3", title="Attention", body="FlashAttention 3 is out.")
    publish(slug="h300", title="Attention", body="An H300 does not exist.")
    assert found(client, "3") == ["fa3"]
    assert found(client, "is") == ["fa3"]  # not "exist"


def test_other_short_terms_match_as_substrings(client, publish):
    publish(slug="mixed", title="Note", body="把 data调度 写在一起。")
    publish(slug="apart", title="Note", body="data 调度 c ++")
    assert found(client, '"a调"') == ["mixed"]  # quoted: unquoted, it is "a" and "调"
    assert found(client, "c+") == []


def test_unknown_words_find_nothing(client, gpu_note):
    assert found(client, "kubernetes") == []
    assert found(client, "量子纠缠") == []


@pytest.mark.parametrize("q", ["调度", "scheduler", "warp scheduler"])
def test_title_ranks_above_tags_above_body_whatever_the_dates(client, publish, q):
    tag = make_tag(name="Warp scheduler", name_zh="线程束调度")
    publish(slug="body", title="Newest", body=f"Only the body says {q} here.")
    publish(slug="tag", title="Middle", body="Nothing.", tags=[tag], published_ago=timedelta(2))
    publish(slug="title", title=f"Oldest: {q}", body="Nothing.", published_ago=timedelta(9))
    assert found(client, q) == ["title", "tag", "body"]


def test_with_several_terms_each_term_s_place_adds_up(client, publish):
    tag = make_tag(name="H100 tuning", name_zh="H100 调优")
    publish(slug="both-titled", title="调度 and H100", body="-", published_ago=timedelta(9))
    publish(slug="one-titled", title="调度", body="H100 here", published_ago=timedelta(5))
    publish(slug="tagged", title="-", body="调度 H100", tags=[tag], published_ago=timedelta(4))
    publish(slug="body-only", title="-", body="调度 on H100")
    publish(slug="one-term", title="调度 alone", body="Nothing else.")
    # 100 + 100, 100 + 1, 10 + 1, 1 + 1, whatever the dates
    assert found(client, "调度 H100") == ["both-titled", "one-titled", "tagged", "body-only"]


def test_equal_matches_newest_first(client, publish):
    for days in (3, 1, 2):
        publish(slug=f"d{days}", title="Note", body="调度", published_ago=timedelta(days))
    assert found(client, "调度") == ["d1", "d2", "d3"]


def test_tags_are_found_by_either_name(client, publish):
    tag = make_tag(name="Quantization", name_zh="量化")
    publish(slug="tagged", title="Note", body="Nothing here.", tags=[tag])
    assert found(client, "量化") == ["tagged"]
    assert found(client, "quantization") == ["tagged"]


def test_drafts_and_scheduled_notes_are_never_found(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        make_draft(slug="draft", body="调度")
        make_scheduled(slug="later", body="调度")
    assert found(client, "调度") == []


def test_a_scheduled_note_is_found_once_its_time_comes(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        make_scheduled(slug="later", body="调度")
    assert found(client, "调度") == []
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        assert found(client, "调度") == ["later"]


def test_more_matches_than_are_listed_say_so_and_list_the_best(client, publish, monkeypatch):
    monkeypatch.setattr("blog.search.query.LISTED", 3)
    publish(slug="title", title="调度 notes", body="Nothing.", published_ago=timedelta(9))
    for days in (1, 2, 3, 4):
        publish(slug=f"d{days}", title="Note", body="调度", published_ago=timedelta(days))
    for path, says in (("/search/", "超过 3 篇"), ("/en/search/", "More than 3 notes found")):
        response = client.get(path, {"q": "调度"})
        assert [note.slug for note in response.context["results"]] == ["title", "d1", "d2"]
        assert response.context["paginator"].num_pages == 1
        count = BeautifulSoup(response.content, "html.parser").select_one(".search-count")
        assert says in count.text
    monkeypatch.setattr("blog.search.query.LISTED", 5)
    assert found(client, "调度") == ["title", "d1", "d2", "d3", "d4"]
    tag = make_tag(name="调度器", name_zh="调度器")
    publish(slug="tagged", title="Note", body="Nothing.", tags=[tag], published_ago=timedelta(8))
    publish(slug="title2", title="调度 again", body="Nothing.", published_ago=timedelta(7))
    monkeypatch.setattr("blog.search.query.LISTED", 1)  # the titles alone fill the list
    assert found(client, "调度") == ["title2"]
    monkeypatch.setattr("blog.search.query.LISTED", 3)
    assert found(client, "调度") == ["title2", "title", "tagged"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own plan")
@pytest.mark.parametrize("every", [1, 3])  # every note is a candidate, or one in 3
@pytest.mark.parametrize("terms", [["调度"], ["cublas"], ["调度", "cublas"]])
def test_walked_or_found_in_the_index_the_order_is_the_same(
    client, publish, monkeypatch, terms, every
):
    """PostgreSQL reads each score's notes apart, walks the newest documents for the lowest,
    walks on if one in ten matched, and takes the rest from the index
    (blog.search.newest_first): whichever part finds a note, the list is the general plan's,
    by score (title 100, tags 10, elsewhere 1, per term), then newest first."""
    monkeypatch.setattr("blog.search.newest_first.FIRST_WALK", 4)
    monkeypatch.setattr("blog.search.newest_first.SECOND_WALK", 5)
    monkeypatch.setattr("blog.search.newest_first.WALK_RATE", 4)
    weights = {"title": 100, "tags": 10, "body": 1}
    tags = {term: make_tag(name=f"{term} tag", name_zh=f"{term} 标签") for term in terms}
    scored = []
    for n in range(4 ** len(terms) * every):
        choice = n // every if n % every == 0 else -1  # -1: holds no term
        places = [("title", "tags", "body", None)[choice // 4**k % 4] if choice >= 0 else None
                  for k in range(len(terms))]  # fmt: skip
        held = dict(zip(terms, places, strict=True))
        publish(
            slug=f"n{n}", published_ago=timedelta(hours=n + 1),
            title=" ".join([f"{t}" for t, place in held.items() if place == "title"] + [str(n)]),
            body=" ".join([t for t, place in held.items() if place == "body"] + ["别的内容"]),
            tags=[tags[t] for t, place in held.items() if place == "tags"],
        )  # fmt: skip
        if all(places):
            scored.append((-sum(weights[place] for place in places), n))
    # Everywhere at once: listed once, among the best.
    everywhere = len(scored) * 10
    publish(slug=f"n{everywhere}", title=" ".join(terms), body=" ".join(terms),
            tags=list(tags.values()), published_ago=timedelta(hours=everywhere))  # fmt: skip
    scored.append((-100 * len(terms), everywhere))
    ranked = [f"n{n}" for _score, n in sorted(scored)]
    q, pages = " ".join(terms), range(1, (len(ranked) + 9) // 10 + 1)
    assert [slug for page in pages for slug in found(client, q, page=page)] == ranked
    monkeypatch.setattr("blog.search.query.LISTED", 2)
    assert found(client, q) == ranked[:2]


def test_a_note_unpublished_before_the_index_follows_is_not_listed(client, publish):
    publish(slug="kept", title="Note", body="调度")
    gone = publish(slug="gone", title="Note", body="调度", published_ago=timedelta(2))
    Note.objects.filter(pk=gone.pk).update(status=Status.DRAFT)  # the index is not told
    assert found(client, "调度") == ["kept"]


def test_results_show_highlighted_snippets_of_escaped_text(client, publish):
    body = "`<script>alert(1)</script>` " + "填充文字。" * 100 + "这里讲 warp 调度的细节。"
    body += "后文。" * 100
    publish(slug="long", title="调度笔记", body=body)
    response = client.get("/search/", {"q": "调度"})
    [note] = response.context["results"]
    assert "<mark>调度</mark>" in note.search_snippet
    assert note.search_snippet.startswith("…") and note.search_snippet.endswith("…")
    assert len(note.search_snippet) < 300
    html = BeautifulSoup(response.content, "html.parser")
    result = html.select_one("main article")
    assert [mark.text for mark in result.select("h2 mark")] == ["调度"]
    assert "调度" in [mark.text for mark in result.select(".search-snippet mark")]
    assert result.select_one("h2 a")["href"] == "/notes/long/"
    assert "<script>" not in response.content.decode()


def test_snippets_escape_markup_around_the_match():
    text = "<b>bold</b> & cuBLAS <i>"
    html = snippet(text, parse_query("cublas").terms)
    assert html == "&lt;b&gt;bold&lt;/b&gt; &amp; <mark>cuBLAS</mark> &lt;i&gt;"


def test_snippets_mark_what_matched_in_the_original_text():
    terms = parse_query('H100 "FlashAttention 3"').terms
    text = "Ｈ１００ ships FlashAttention-3… and H100."
    assert snippet(text, terms) == (
        "<mark>Ｈ１００</mark> ships <mark>FlashAttention-3</mark>… and <mark>H100</mark>."
    )


def test_snippets_mark_across_invisible_format_characters():
    # A zero-width space is dropped when folding, and "ﬁ" becomes two letters: the text keeps
    # its length, yet the mark must cover the original characters.
    html = snippet("ﬁne Flash\u200bAttention-3 here.", parse_query("flashattention").terms)
    assert html == "ﬁne <mark>Flash\u200bAttention</mark>-3 here."


def test_snippets_mark_short_words_only_as_whole_words():
    html = snippet("用3写, H300, FlashAttention-3.", parse_query("3").terms)
    assert html == "用<mark>3</mark>写, H300, FlashAttention-<mark>3</mark>."


def test_empty_search_shows_a_prompt(client):
    response = client.get("/search/")
    assert response.status_code == 200
    assert response.context["results"] == []
    assert "cuBLAS" in response.content.decode()  # the examples
    assert response.context["noindex"] is True


def test_the_english_interface(client, gpu_note):
    response = client.get("/en/search/", {"q": "调度"})
    assert [n.slug for n in response.context["results"]] == ["gpu"]
    page = response.content.decode()
    assert "1 note found." in page
    assert 'lang="zh-Hans"' in page


def test_result_pages_are_not_for_search_engines(client, gpu_note):
    response = client.get("/search/", {"q": "调度"})
    assert response["X-Robots-Tag"] == "noindex"
    assert '<meta name="robots" content="noindex">' in response.content.decode()
    assert "public" in response["Cache-Control"]


BAD_QUERIES = [
    " ",
    "x" * 1000,
    "调" * 1000,
    "调度 " * 300,
    '"',
    '"unbalanced quote',
    'a " b " c "',
    '""',
    "“弯引号”",
    "*",
    "cub*",
    "NEAR(",
    "NEAR(cublas h100, 2)",
    "-",
    "-cublas",
    "AND",
    "OR",
    "cublas OR",
    "NOT",
    "^",
    "^调度",
    ":",
    "title:cublas",
    "{title tags}: x",
    "(",
    ")",
    "%",
    "%%",
    "_",
    "\\",
    "'",
    "'); DROP TABLE blog_note; --",
    "\x00",
    "调\x00度",
    "\x01\x02\x1f\x7f",
    "\t\n\r",
    "\u200b",
    "\ufeff调度",
    "\u202e\u202d",
    "e\u0301",
    "\u0301",
    "ﬁ",
    "İ",
    "ß",
    "𠀀𠀁",
    "👩\u200d💻",
    "🇨🇳",
    "\ufffd",
    "\U0010fffd",
    "a调",
    "c+",
    "c++",
    "..",
]


@pytest.mark.parametrize("path", ["/search/", "/en/search/"])
@pytest.mark.parametrize("q", BAD_QUERIES)
def test_no_query_breaks_the_page(client, gpu_note, path, q):
    response = client.get(path, {"q": q})
    assert response.status_code == 200
    assert len(response.context["query"]) <= MAX_QUERY_CHARS


def test_a_nul_byte_in_the_url(client, gpu_note):
    assert client.get("/search/?q=%E8%B0%83%00%E5%BA%A6").status_code == 200
    assert found(client, "调\x00度") == ["gpu"]  # control characters are dropped


def test_long_queries_are_cut_and_the_reader_told(client, gpu_note):
    response = client.get("/search/", {"q": "调度 " + "x" * 1000})
    assert response.context["search"].truncated
    assert len(response.context["query"]) <= MAX_QUERY_CHARS
    assert "200" in response.content.decode()  # "only the first 200 characters…"


@pytest.mark.parametrize("page", ["abc", "0", "-1", "99999", "last", "1.5", "", "1e9", "%00"])
def test_odd_page_numbers_give_a_page(client, publish, page):
    for n in range(12):
        publish(slug=f"n{n}", title=f"Note {n}", body="调度")
    response = client.get("/search/", {"q": "调度", "page": page})
    assert response.status_code == 200
    assert response.context["page_obj"].number in {1, 2}


def test_pages_keep_the_query(client, publish):
    for n in range(12):
        publish(slug=f"n{n}", title=f"Note {n}", body="调度", published_ago=timedelta(n + 1))
    first = found(client, "调度")
    second = found(client, "调度", page=2)
    assert len(first) == 10 and len(second) == 2 and not set(first) & set(second)
    html = BeautifulSoup(client.get("/search/", {"q": "调度"}).content, "html.parser")
    assert html.select_one("a[rel=next]")["href"] == "?q=%E8%B0%83%E5%BA%A6&page=2"


@pytest.mark.parametrize("count", [3, 14])
def test_a_results_page_costs_a_constant_number_of_queries(
    client, publish, django_assert_max_num_queries, count
):
    series = make_series()
    tags = [make_tag("GPU", "图形处理器"), make_tag("CUDA", "CUDA")]
    for n in range(count):
        publish(slug=f"n{n}", title=f"调度 {n}", body="调度", tags=tags, series=series)
    # The first search after a change reads the glossary, the site settings and the notes
    # that translated pairs hide again (blog.search.ranked.hidden_by_pairs).
    for page in ("1", "2"):
        with django_assert_max_num_queries(6 + time_bound()):
            assert client.get("/search/", {"q": "调度", "page": page}).status_code == 200
    # Ids, the page's notes with their series, their tags, and the content version that says
    # whether the cached site settings are current.
    with django_assert_max_num_queries(time_bound() + 4):
        client.get("/search/", {"q": "调度"})


@pytest.fixture
def corpus():
    """A few hundred notes: enough for PostgreSQL's planner to prefer its indexes."""
    published = timezone.now() - timedelta(days=1)
    filler = (
        Note(
            title=f"Filler {n}",
            slug=f"filler-{n}",
            status=Status.PUBLISHED,
            published_at=published,
            plain_text=f"平常的一天, note number {n}. " * 40,
        )
        for n in range(300)
    )
    Note.objects.bulk_create(filler)
    gpu = Note(title="GPU", slug="gpu", status=Status.PUBLISHED, published_at=published)
    gpu.plain_text = GPU_BODY
    Note.objects.bulk_create([gpu])
    rebuild()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE blog_note")
    return Note.objects.get(slug="gpu")


INDEXES_USED = {
    ("sqlite", "cublas"): ["blog_search_fts VIRTUAL TABLE INDEX", "blog_search_head VIRTUAL"],
    ("sqlite", "调度"): ["blog_search_grams VIRTUAL TABLE INDEX"],
    ("postgresql", "cublas"): ["blog_search_text_trgm"],
    ("postgresql", "调度"): ["blog_search_units_gin"],
}


@pytest.mark.parametrize("q", ["cublas", "调度"])
def test_the_databases_own_index_answers(corpus, q):
    """The match runs through FTS5 / GIN indexes, not a scan of every note's text."""
    query = parse_query(q)
    sql, params = search_query.ranked_queryset(query).query.sql_with_params()
    explain = "EXPLAIN QUERY PLAN " if connection.vendor == "sqlite" else "EXPLAIN "
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A few hundred short notes are cheaper to scan, and the planner knows it. What is
            # checked is that the queries' expressions are the indexes' ones, so the indexes
            # can answer (the benchmark shows the plans on 10,000 notes).
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(explain + sql, params)
        plan = "\n".join(str(row[-1]) for row in cursor.fetchall())
    for index in INDEXES_USED[connection.vendor, q]:
        assert index in plan, plan
    assert search_query.ranked_ids(query) == [corpus.pk]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
def test_a_common_word_is_answered_by_the_units_index_not_by_reading_every_note():
    """With the statistics saying 调度 is in a quarter of the notes, reading the table looked
    cheaper to the planner than the index, and split every document's units on the way
    (docs/performance.md, "Search on PostgreSQL")."""
    published = timezone.now() - timedelta(days=1)
    Note.objects.bulk_create(
        Note(
            title=f"笔记 {n}", slug=f"common-{n}", status=Status.PUBLISHED,
            published_at=published,
            plain_text=("warp 调度器和线程束调度" if n % 4 == 0 else "共享内存和寄存器") * 20,
        )
        for n in range(800)
    )  # fmt: skip
    rebuild()
    query = parse_query("调度")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE blog_note")
        cursor.execute("ANALYZE blog_searchdocument")
        sql, params = search_query.ranked_queryset(query).query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "blog_search_units_gin" in plan, plan
    assert len(search_query.ranked_ids(query)) == 200
