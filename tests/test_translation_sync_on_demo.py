"""Issue 20's walkthrough on the demo blog, end to end, as the author and readers meet it.

The author edits a paragraph of the Chinese original (CUDA warp scheduling) in the admin. Then
the English translation says so under its title and at the top of its feed entry, the admin's
list marks it behind its original, and its change form shows the changed paragraph. Its author
presses "Brought in line": all of it goes. The parallel view marks the changed block meanwhile.

Committed transactions (``transaction=True``) with the page cache on, as in production: the
pages are cached before the edit, and follow it through the after-commit invalidation.
"""

import feedparser
import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from blog.models import Note
from tests.factories import make_staff
from tests.test_conflict_screen import form_data

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ORIGINAL, TRANSLATION = "cuda-warp-scheduling", "cuda-warp-scheduling-en"
OLD = "以 Ampere（A100）为例，一个 SM 分成 4 个 processing block（SMSP）"
NEW = "以 Hopper（H100）为例，一个 SM 同样分成 4 个 processing block（SMSP）"
NOTICE = "The original was updated on"


@pytest.fixture
def demo():
    call_command("load_demo", verbosity=0)


@pytest.fixture
def author(demo):
    client = Client(headers={"accept-language": "en"})  # the admin in English
    client.force_login(make_staff())
    return client


def soup(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return BeautifulSoup(response.content, "html.parser")


def notice_on_page(path):
    found = soup(Client(), path).select_one(".translation-notice")
    return found and found.get_text(" ", strip=True)


def entry_content(title):
    feed = feedparser.parse(Client().get("/lang/en/feed/").content)
    [entry] = [entry for entry in feed.entries if entry.title == title]
    return entry.content[0].value


def change_url(note):
    return reverse("admin:blog_note_change", args=[note.pk])


def list_state(author, note):
    page = soup(author, reverse("admin:blog_note_changelist") + "?q=warp&language__exact=en")
    [row] = [row for row in page.select("#result_list tbody tr") if note.title in row.get_text()]
    return row.get_text(" ", strip=True)


def test_editing_the_original_puts_the_translation_behind_until_brought_in_line(author):
    original = Note.objects.get(slug=ORIGINAL)
    translation = Note.objects.get(slug=TRANSLATION)
    page, feed_title = f"/en/notes/{TRANSLATION}/", translation.title
    # Read (and cached) before the edit: in line, nothing to say.
    assert notice_on_page(page) is None
    assert NOTICE not in entry_content(feed_title)
    assert "In line" in list_state(author, translation)

    edit = author.get(change_url(original))
    assert OLD in edit.content.decode()
    data = form_data(edit.content.decode())
    data["body"] = data["body"].replace(OLD, NEW)
    assert author.post(change_url(original), data).status_code == 302

    # The reader: under the title, in English whatever the interface, and in the feed entry.
    for path in (page, f"/notes/{TRANSLATION}/"):
        assert NOTICE in notice_on_page(path)
    assert NOTICE in entry_content(feed_title)
    # The parallel view marks the changed block of the original.
    parallel = soup(Client(), f"/en/notes/{TRANSLATION}/parallel/")
    [changed] = parallel.select(".is-changed")
    assert "Hopper（H100）" in changed.get_text()
    # The author: the list, and the change form's diff naming what changed.
    assert "Behind its original" in list_state(author, translation)
    form = soup(author, change_url(translation))
    panel = form.select_one(".translation-behind")
    assert panel is not None
    assert "Hopper" in panel.get_text() and "Ampere" in panel.get_text()  # now and before

    button = panel.select_one("form.bring-in-line")
    fields = {field["name"]: field.get("value", "") for field in button.select("input[name]")}
    assert author.post(button["action"], fields).status_code == 302

    assert notice_on_page(page) is None
    assert NOTICE not in entry_content(feed_title)
    assert "In line" in list_state(author, translation)
    assert soup(author, change_url(translation)).select_one(".translation-behind") is None
    assert soup(Client(), f"/en/notes/{TRANSLATION}/parallel/").select(".is-changed") == []
