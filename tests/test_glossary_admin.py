"""The glossary in the admin: a term is written with both definitions in the notes' Markdown
editor (each previewed in its own language), lists with its forms and how many notes use it,
keeps revisions like a note, and a term without a name is explained, not a server error.

Forms are posted as a browser posts them (tests/test_conflict_screen.py's ``form_data``).
"""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from blog.models import Term, TermUse
from blog.models.revisions import versions_of
from tests.factories import make_note
from tests.test_conflict_screen import form_data

pytestmark = pytest.mark.django_db

ADD = reverse("admin:blog_term_add")


def change_url(term):
    return reverse("admin:blog_term_change", args=[term.pk])


def post(client, url, **changes):
    """Open the form at ``url`` and save it with ``changes`` typed in (a multiple choice with
    nothing chosen is not sent, as a browser sends it)."""
    data = form_data(client.get(url).content.decode(), **changes)
    return client.post(
        url, {name: value for name, value in data.items() if value != "" or name != "explained_in"}
    )


def test_a_term_is_written_with_both_definitions_in_the_markdown_editor(staff_client):
    page = BeautifulSoup(staff_client.get(ADD).content, "html.parser")
    editors = {
        editor.select_one("textarea")["name"]: editor for editor in page.select(".biji-editor")
    }
    assert set(editors) == {"definition_zh", "definition_en"}
    for name, language in (("definition_zh", "zh-hans"), ("definition_en", "en")):
        # The preview reads the language from the field the editor names.
        field = editors[name]["data-language-field"]
        assert page.select_one(f'input[name="{field}"]')["value"] == language
        assert editors[name].select_one("iframe.editor-preview")

    note = make_note(title="线程束调度", slug="warp-note")
    response = post(
        staff_client,
        ADD,
        chinese="线程束",
        english="warp",
        english_variants="warps\nWarp",
        definition_zh="一组 **32** 个线程。",
        definition_en="A group of **32** threads.",
        explained_in=str(note.pk),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    term = Term.objects.get()
    assert (term.slug, term.chinese, term.english) == ("warp", "线程束", "warp")
    assert "<strong>32</strong>" in term.definition_zh_html
    assert "<strong>32</strong>" in term.definition_en_html
    assert list(term.explained_in.all()) == [note]
    change = BeautifulSoup(staff_client.get(change_url(term)).content, "html.parser")
    assert change.select_one("a.viewsitelink")["href"].endswith("/glossary/warp/")


def test_each_save_is_a_revision_with_what_changed(staff_client):
    post(staff_client, ADD, english="occupancy", definition_en="First.")
    term = Term.objects.get()
    response = post(staff_client, change_url(term), chinese="占用率", definition_en="Second.")
    assert response.status_code == 302
    versions = list(versions_of(term))
    assert [v.field_dict["definition_en"] for v in versions] == ["Second.", "First."]
    assert versions[0].revision.user.username == "author"
    history = staff_client.get(reverse("admin:blog_term_history", args=[term.pk]))
    assert history.status_code == 200
    assert "中文术语" in history.content.decode()  # "Changed Chinese term and …", in Chinese
    compare = staff_client.get(reverse("admin:blog_term_revision", args=[term.pk, versions[1].pk]))
    assert compare.status_code == 200 and "First." in compare.content.decode()


def test_an_old_version_can_be_restored(staff_client):
    post(staff_client, ADD, english="occupancy", definition_en="First.")
    term = Term.objects.get()
    post(staff_client, change_url(term), definition_en="Second.")
    first = list(versions_of(term))[-1]
    url = reverse("admin:blog_term_revision", args=[term.pk, first.pk])
    response = post(staff_client, url)
    assert response.status_code == 302
    term.refresh_from_db()
    assert term.definition_en == "First." and "First." in term.definition_en_html
    assert len(versions_of(term)) == 3  # the restore is a revision too


@pytest.mark.parametrize("names", [{}, {"chinese": "  ", "english": "   "}])
def test_a_term_without_a_name_is_explained_not_a_server_error(staff_client, names):
    response = post(staff_client, ADD, definition_en="Something.", **names)
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert list(errors) == ["术语需要中文或英文写法。"]  # the admin speaks Chinese here
    assert not Term.objects.exists()


def test_the_list_shows_both_forms_and_the_notes_using_each(staff_client):
    warp = Term.objects.create(english="warp", chinese="线程束")
    Term.objects.create(english="tensor core", keep_in_english=True)
    for n in range(3):
        TermUse.objects.create(note=make_note(slug=f"uses-{n}"), term=warp)
    page = BeautifulSoup(
        staff_client.get(reverse("admin:blog_term_changelist")).content, "html.parser"
    )
    rows = {
        row.select_one(".field-english").get_text(): row.select_one(".field-note_count").get_text()
        for row in page.select("#result_list tbody tr")
    }
    assert rows == {"warp": "3", "tensor core": "0"}
    found = staff_client.get(reverse("admin:blog_term_changelist"), {"q": "线程束"})
    assert found.context["cl"].result_count == 1


def test_the_note_form_has_the_switch_for_marking_terms(staff_client):
    note = make_note(slug="switch")
    url = reverse("admin:blog_note_change", args=[note.pk])
    page = BeautifulSoup(staff_client.get(url).content, "html.parser")
    assert page.select_one('input[type="checkbox"][name="marks_terms"]').has_attr("checked")
    data = form_data(str(page))
    del data["marks_terms"]  # unticked
    assert staff_client.post(url, data).status_code == 302
    note.refresh_from_db()
    assert note.marks_terms is False


@pytest.mark.parametrize(
    ("typed", "field"),
    [
        ({"chinese": "线程束", "english": "warp"}, "chinese"),
        ({"english": "WARP"}, "english"),  # the same form in another case
        ({"chinese": "束", "chinese_variants": "线程束"}, "chinese_variants"),
        ({"english": "thread bundle", "english_variants": "wavefront, Warp"}, "english_variants"),
    ],
)
def test_a_form_another_term_has_is_refused_with_a_link_to_it(staff_client, typed, field):
    warp = Term.objects.create(chinese="线程束", english="warp", english_variants="wavefront")
    response = post(staff_client, ADD, **typed)
    assert response.status_code == 200
    assert Term.objects.count() == 1  # nothing saved: no #warp-2
    errors = response.context["adminform"].form.errors[field]
    assert "线程束 / warp" in errors[0]
    page = response.content.decode()
    assert f'href="{change_url(warp)}"' in page  # the way to the term that has it


def test_a_term_keeps_its_own_forms_when_it_is_saved_again(staff_client):
    warp = Term.objects.create(chinese="线程束", english="warp", english_variants="Warp")
    assert (
        post(staff_client, change_url(warp), definition_en="A group of 32 threads.").status_code
        == 302
    )
