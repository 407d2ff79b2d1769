"""Search: a term typed without a space where Latin letters meet Chinese (``warp调度``) finds
what the same words typed apart (``warp 调度``) find, on SQLite and PostgreSQL alike.

Readers of a bilingual blog write ``H100上`` the way the notes do; notes that write it either
way are found. A quoted phrase is still looked for exactly as typed.
"""

import pytest

from blog.search.text import Kind, parse_query
from tests.factories import make_note

pytestmark = pytest.mark.django_db


@pytest.fixture
def publish(django_capture_on_commit_callbacks):
    """``make_note`` with its after-commit indexing run, as after a real save."""

    def publish(*args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return make_note(*args, **kwargs)

    return publish


def found(client, q):
    response = client.get("/search/", {"q": q})
    assert response.status_code == 200
    return sorted(note.slug for note in response.context["results"])


@pytest.fixture
def gpu_notes(publish):
    publish(slug="apart", title="Warp 调度", body="在 H100 上，warp 调度器把指令发给 SM 里的单元。")
    publish(slug="glued", title="调度笔记", body="H100上的warp调度：SM里有四个调度器。")
    publish(slug="unrelated", title="Essay", body="A quiet walk by the sea. 海边散步。")
    publish(slug="latin-only", title="Warps", body="A warp is 32 threads on an SM of an H100.")


@pytest.mark.parametrize(
    ("glued", "apart"),
    [
        ("warp调度", "warp 调度"),
        ("H100上", "H100 上"),
        ("SM里", "SM 里"),
        ("调度warp", "调度 warp"),
    ],
)
def test_a_term_typed_without_a_space_finds_what_it_finds_with_one(client, gpu_notes, glued, apart):
    assert found(client, glued) == found(client, apart) == ["apart", "glued"]


def test_the_title_still_ranks_first(client, gpu_notes):
    response = client.get("/search/", {"q": "warp调度"})
    assert [note.slug for note in response.context["results"]][0] == "apart"


def test_both_halves_are_highlighted(client, gpu_notes):
    response = client.get("/search/", {"q": "warp调度"})
    apart = next(n for n in response.context["results"] if n.slug == "apart")
    assert apart.search_title == "<mark>Warp</mark> <mark>调度</mark>"


def test_the_query_is_split_where_the_script_changes():
    terms = parse_query("warp调度 H100上 SM里 c++调度").terms
    assert [(t.text, t.kind) for t in terms] == [
        ("warp", Kind.SUBSTRING),
        ("调度", Kind.CJK),
        ("h100", Kind.SUBSTRING),
        ("上", Kind.CJK),
        ("sm", Kind.WORD),
        ("里", Kind.CJK),
        ("c++", Kind.SUBSTRING),
    ]


def test_the_reader_sees_what_they_typed():
    assert parse_query("warp调度").text == "warp调度"


def test_a_quoted_phrase_is_looked_for_as_typed(client, gpu_notes):
    assert [t.text for t in parse_query('"warp调度"').terms] == ["warp调度"]
    assert found(client, '"warp调度"') == ["glued"]
