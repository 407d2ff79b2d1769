"""Series positions in the note form: choosing a series proposes the next free position in the
note's language (the endpoint editor.js asks; a new note opened with a series; an empty
position on save), the note's own place or its translation's when they fit; a taken position
is still refused with its holder named."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from blog.models import Language, Note
from tests.factories import make_draft, make_note, make_series, note_form_data

pytestmark = pytest.mark.django_db


def proposal(client, **params):
    response = client.get(reverse("admin:blog_note_position"), params)
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
    return response.json()["position"]


@pytest.fixture
def series():
    """Parts 1, 2 and 4 in Chinese (a draft holds 4), part 1 in English."""
    series = make_series()
    make_note(series=series, series_position=1)
    make_note(series=series, series_position=2)
    make_draft(series=series, series_position=4)
    make_note(series=series, series_position=1, language=Language.ENGLISH)
    return series


def test_the_proposal_is_after_the_last_part_in_the_note_s_language(staff_client, series):
    assert proposal(staff_client, series=series.pk, language="zh-hans") == 5
    assert proposal(staff_client, series=series.pk, language="en") == 2
    assert proposal(staff_client, series=make_series().pk, language="en") == 1


def test_a_note_keeps_its_own_place_in_its_series(staff_client, series):
    note = Note.objects.get(series=series, series_position=2, language=Language.CHINESE)
    assert proposal(staff_client, series=series.pk, language="zh-hans", note=note.pk) == 2
    # In another series, it gets that series' next place.
    other = make_series()
    assert proposal(staff_client, series=other.pk, language="zh-hans", note=note.pk) == 1


def test_a_translation_is_proposed_its_original_s_place(staff_client, series):
    original = Note.objects.get(series=series, series_position=4)
    params = {"series": series.pk, "language": "en", "translation": original.pk}
    assert proposal(staff_client, **params) == 4
    make_note(series=series, series_position=4, language=Language.ENGLISH)
    assert proposal(staff_client, **params) == 5  # taken in English: after the last


@pytest.mark.parametrize(
    "params", [{}, {"series": "x"}, {"series": "999999"}, {"series": "1", "language": "fr"}]
)
def test_bad_parameters_get_an_answer_not_an_error(staff_client, params):
    response = staff_client.get(reverse("admin:blog_note_position"), params)
    assert response.status_code == 200 and "position" in response.json()


def test_the_endpoint_is_for_authors_only(client):
    response = client.get(reverse("admin:blog_note_position"), {"series": 1})
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_new_note_opened_with_a_series_has_its_position_filled(staff_client, series):
    html = staff_client.get(reverse("admin:blog_note_add"), {"series": series.pk}).content
    field = BeautifulSoup(html, "html.parser").select_one("input[name=series_position]")
    assert field["value"] == "5"
    assert field["data-position-url"] == reverse("admin:blog_note_position")


def test_an_empty_position_is_filled_on_save(staff_client, series):
    response = staff_client.post(
        reverse("admin:blog_note_add"), note_form_data(series=series.pk, series_position="")
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Note.objects.latest("pk").series_position == 5


def test_moving_a_note_to_another_series_with_an_empty_position_fills_it(staff_client, series):
    note = make_note(title="单独一篇")
    data = note_form_data(note, series=series.pk, series_position="")
    assert (
        staff_client.post(reverse("admin:blog_note_change", args=[note.pk]), data).status_code
        == 302
    )
    note.refresh_from_db()
    assert (note.series, note.series_position) == (series, 5)


def test_an_unchanged_series_with_no_position_is_left_alone(staff_client, series):
    # An imported note in a series without a position: saving it does not number it.
    note = make_note(series=series, series_position=None)
    data = note_form_data(note, title="改过")
    assert (
        staff_client.post(reverse("admin:blog_note_change", args=[note.pk]), data).status_code
        == 302
    )
    note.refresh_from_db()
    assert note.series_position is None


def test_a_typed_position_that_is_taken_is_still_refused(staff_client, series):
    response = staff_client.post(
        reverse("admin:blog_note_add"), note_form_data(series=series.pk, series_position=2)
    )
    assert response.status_code == 200
    assert "series_position" in response.context["adminform"].form.errors


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh-hans", "选择系列后会建议下一个空位"), ("en", "Choosing a series proposes the next free")],
)
def test_the_help_text_says_a_position_is_proposed(staff_client, language, expected):
    html = staff_client.get(
        reverse("admin:blog_note_add"), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    assert expected in html
