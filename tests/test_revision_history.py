"""The revision history reads in the admin's language and tells the truth: what changed names
the fields as the form does, in Chinese or English whoever saved; tags and a publication time
saved as the form showed them are not changes; a restore says its date in local time, as the
history lists it; and any two versions can be compared.

The forms are posted as a browser posts them (tests/test_conflict_screen.py's ``form_data``).
"""

from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from blog.models import Note
from blog.models.revisions import versions_of
from tests.factories import make_note, make_tag
from tests.test_conflict_screen import form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def author():
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client = Client()
    client.force_login(user)
    return client


def save(client, note, language, **changes):
    """Open the change form in ``language`` and save it with ``changes`` typed in."""
    url = reverse("admin:blog_note_change", args=[note.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    response = client.post(url, form_data(page, **changes), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 302, response.context["adminform"].form.errors
    return Note.objects.get(pk=note.pk)


def what_changed(client, note, language):
    """The "what changed" column of the history, newest first."""
    url = reverse("admin:blog_note_history", args=[note.pk])
    soup = BeautifulSoup(client.get(url, HTTP_ACCEPT_LANGUAGE=language).content, "html.parser")
    return [row.find_all("td")[-2].text.strip() for row in soup.select("tbody tr")[1:]]


def test_what_changed_names_the_fields_in_the_reader_s_language(author):
    note = make_note(title="调度", body="第一版\n")
    save(author, note, "zh-hans", title="调度笔记", body="第二版\n", tags="CUDA")
    assert what_changed(author, note, "zh-hans") == ["已修改标题，正文 和 标签。"]
    # The same revision, read in English: the comment is kept by field, not as a sentence.
    assert what_changed(author, note, "en") == ["Changed title, body and tags."]

    save(author, note, "en", summary="一句话")
    assert what_changed(author, note, "zh-hans")[0] == "已修改摘要。"
    assert what_changed(author, note, "en")[0] == "Changed summary."


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_tags_saved_as_the_form_shows_them_are_not_a_change(author, language):
    note = make_note(body="第一版\n")
    note.tags.add(make_tag(name="Scheduling", name_zh="调度"), make_tag(name="CUDA", name_zh=""))
    save(author, note, language, body="第二版\n")  # the tag field left as shown
    expected = {"zh-hans": "已修改正文。", "en": "Changed body."}[language]
    assert what_changed(author, note, language) == [expected]
    # Typed in the other language, the same tags are still the same tags.
    save(author, note, language, body="第三版\n", tags="Scheduling, CUDA")
    save(author, note, language, body="第四版\n", tags="调度, cuda")
    assert what_changed(author, note, language)[:2] == [expected, expected]

    save(author, note, language, tags="调度")
    assert (
        what_changed(author, note, language)[0]
        == {
            "zh-hans": "已修改标签。",
            "en": "Changed tags.",
        }[language]
    )


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_publication_time_saved_as_shown_is_not_a_change(author, language):
    published = timezone.now().replace(second=47, microsecond=150_000) - timedelta(days=2)
    note = make_note(title="已发布", published_at=published)
    save(author, note, language, title="已发布的笔记")  # the first edit after publishing
    expected = {"zh-hans": "已修改标题。", "en": "Changed title."}[language]
    assert what_changed(author, note, language) == [expected]

    later = timezone.localtime(published + timedelta(hours=1))
    save(
        author,
        note,
        language,
        published_at_0=later.strftime("%Y-%m-%d"),
        published_at_1=later.strftime("%H:%M"),
    )
    assert (
        what_changed(author, note, language)[0]
        == {
            "zh-hans": "已修改发布时间。",
            "en": "Changed published at.",
        }[language]
    )


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_restore_says_its_date_in_local_time_as_the_history_lists_it(author, settings, language):
    settings.TIME_ZONE = "America/Los_Angeles"  # far from UTC, whatever the machine's clock
    note = make_note(body="原文\n")
    save(author, note, language, body="原文，第一版\n")
    save(author, note, language, body="全部改掉了\n")
    first = list(versions_of(note))[-1]
    url = reverse("admin:blog_note_revision", args=[note.pk, first.pk])
    page = author.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    response = author.post(url, form_data(page), HTTP_ACCEPT_LANGUAGE=language, follow=True)

    with translation.override(language):
        local = formats.date_format(
            timezone.localtime(first.revision.date_created), "DATETIME_FORMAT"
        )
        utc = formats.date_format(first.revision.date_created, "DATETIME_FORMAT")
    assert local != utc
    message = " ".join(str(m) for m in response.context["messages"])
    assert local in message and utc not in message
    history = author.get(
        reverse("admin:blog_note_history", args=[note.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    assert local in history  # the restored version's own row, and the restore's comment
    assert local in what_changed(author, note, language)[0]


def test_any_two_versions_can_be_compared(author):
    note = make_note(body="一\n")
    for body in ("第一版\n", "第二版\n", "第三版\n"):
        save(author, note, "zh-hans", body=body)
    third, second, first = versions_of(note)
    compare = reverse("admin:blog_note_compare", args=[note.pk])

    history = author.get(reverse("admin:blog_note_history", args=[note.pk])).content.decode()
    soup = BeautifulSoup(history, "html.parser")
    assert soup.find("form", action=compare) is not None
    assert soup.find("input", attrs={"name": "from", "value": str(first.pk)}) is not None
    assert soup.find("input", attrs={"name": "to", "value": str(second.pk)}) is not None

    for picked in ({"from": first.pk, "to": second.pk}, {"from": second.pk, "to": first.pk}):
        page = author.get(compare, picked).content.decode()  # either order: older first
        assert '<del class="diff-del">-第一版</del>' in page
        assert '<ins class="diff-ins">+第二版</ins>' in page
        assert "第三版" not in page  # not the current text

    # A version and the current text: the page that can restore it.
    response = author.get(compare, {"from": first.pk, "to": "current"})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:blog_note_revision", args=[note.pk, first.pk])


@pytest.mark.parametrize(
    "picked", [{"from": "999999", "to": "current"}, {"from": "x"}, {"from": "current"}, {}]
)
def test_a_bad_comparison_gets_a_clear_answer(author, picked):
    note = make_note(body="一\n")
    save(author, note, "en", body="二\n")
    response = author.get(
        reverse("admin:blog_note_compare", args=[note.pk]),
        picked,
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("admin:blog_note_history", args=[note.pk])
    messages = [str(m) for m in response.context["messages"]]
    assert messages[-1] in ("That version does not exist.", "Choose two different versions.")
