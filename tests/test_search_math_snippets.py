"""Search results show formulas as readers read them, never their TeX source."""

from io import StringIO

import pytest
from django.core.management import call_command

from blog.models import Note
from tests.factories import make_note

pytestmark = pytest.mark.django_db

BODY = """流水线的总时间可以写成：

$$
T_{\\text{total}} = \\sum_{i=1}^{n} \\max(t_i^{\\text{load}}, t_i^{\\text{compute}})
$$

其中 $t_i^{\\text{load}}$ 是加载时间。
"""
OLD_PLAIN_TEXT = (
    "流水线的总时间可以写成： T_{\\text{total}} = \\sum_{i=1}^{n} "
    "\\max(t_i^{\\text{load}}, t_i^{\\text{compute}}) 其中 t_i^{\\text{load}} 是加载时间。"
)


@pytest.fixture
def pipeline_note(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return make_note(slug="pipeline", title="流水线", body=BODY)


def snippet_for(client, q):
    [note] = client.get("/search/", {"q": q}).context["results"]
    return str(note.search_snippet)


def test_snippets_show_the_formula_as_read_not_its_tex(client, pipeline_note):
    snippet = snippet_for(client, "总时间")
    assert "T_total = ∑_(i=1)^n max(t_i^load, t_i^compute)" in snippet
    assert "\\" not in snippet and "{" not in snippet


def test_words_inside_formulas_are_still_found(client, pipeline_note):
    assert "<mark>compute</mark>" in snippet_for(client, "compute")


def test_rerender_brings_stored_notes_in_line(
    client, pipeline_note, django_capture_on_commit_callbacks
):
    """Notes stored by the previous renderer (TeX in the search text, glued excerpts) get the
    new text, excerpt and index from ``manage.py rerender``."""
    Note.objects.filter(pk=pipeline_note.pk).update(
        plain_text=OLD_PLAIN_TEXT, excerpt="流水线的总时间可以写成：其中 t_i^load 是加载时间。"
    )
    with django_capture_on_commit_callbacks(execute=True):
        call_command("rerender", stdout=StringIO())
    pipeline_note.refresh_from_db()
    assert "\\text" not in pipeline_note.plain_text
    # Without the formula no sentence stands alone: the excerpt reads it.
    assert pipeline_note.excerpt == (
        "流水线的总时间可以写成： T_total = ∑_(i=1)^n max(t_i^load, t_i^compute) "
        "其中 t_i^load 是加载时间。"
    )
    assert "\\" not in snippet_for(client, "总时间")
