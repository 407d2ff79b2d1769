"""Credits (issue 38): a note's translator and co-authors, written in the note's own language in
the admin's "Credits" box, are named on its page near the date ("与 Grace 和 王五 合著 · 译者：
Ada" / "Written with Grace and 王五 · Translated by Ada"), with the source of a translated
article ("译者：Ada。" in its box), and in its feed entries: RSS names every author and the
translator in a dc:creator each, Atom the co-authors and translator as contributors beside the
site's author. Their trip through the Markdown export is in tests/test_corrections.py.
"""

import xml.etree.ElementTree as ET
from datetime import date

import feedparser
import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from blog.models import Note, SiteSettings
from tests.factories import make_note, note_form_data

pytestmark = pytest.mark.django_db

SITE = "https://blog.example"
DC = "{http://purl.org/dc/elements/1.1/}"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(autouse=True)
def _site(settings, db):
    settings.SITE_URL = SITE
    settings.BIJI_PAGE_CACHE_SECONDS = 0
    SiteSettings.objects.create(title="笔记 biji", author="林舟")
    translation.activate("zh-hans")  # a request to /en/ leaves English active in the thread
    yield
    translation.activate("zh-hans")


def credited(**fields):
    return make_note(
        title="Warp 调度", slug="warps", translator="Ada", coauthors="Grace， 王五、Grace", **fields
    )


def text_of(element):
    return " ".join(element.get_text().split())


def page(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return BeautifulSoup(response.content, "html.parser")


@pytest.mark.parametrize(
    ("language", "labels"), [("zh-hans", ("译者", "合著者")), ("en", ("Translator", "Co-authors"))]
)
def test_the_author_gives_the_credits_in_the_admins_credits_box(language, labels):
    note = make_note(slug="warps")
    author = Client(headers={"accept-language": language})
    author.force_login(get_user_model().objects.create_superuser("lin", "l@x.cn", None))
    url = reverse("admin:blog_note_change", args=[note.pk])
    form = page(author, url)
    for name, label in zip(("translator", "coauthors"), labels, strict=True):
        assert text_of(form.select_one(f"label[for=id_{name}]")).startswith(label)
    data = note_form_data(note, translator="Ada", coauthors="Grace、王五")
    assert author.post(url, data).status_code == 302
    saved = Note.objects.get(pk=note.pk)
    assert (saved.translator, saved.coauthors) == ("Ada", "Grace、王五")


@pytest.mark.parametrize(
    ("interface", "line"),
    [
        ("", "与 Grace 和 王五 合著 · 译者：Ada"),
        ("/en", "Written with Grace and 王五 · Translated by Ada"),
    ],
)
def test_the_page_names_the_co_authors_and_the_translator_near_the_date(client, interface, line):
    credited()
    soup = page(client, f"{interface}/notes/warps/")
    credits = soup.select_one("header .note-credits")
    assert text_of(credits) == line
    assert credits.find_previous_sibling("p")["class"] == ["note-meta"]
    # The names as the author wrote them, in the note's language; marked so where the
    # interface speaks another.
    names = [span.get_text() for span in credits.select("span[lang]")]
    assert names == ([] if not interface else ["Grace", "王五", "Ada"])
    assert {span["lang"] for span in credits.select("span[lang]")} <= {"zh-Hans"}


def test_a_note_without_credits_shows_no_credits_line(client):
    make_note(slug="plain")
    assert not page(client, "/notes/plain/").select(".note-credits")


@pytest.mark.parametrize(
    ("interface", "sentence"),
    [("", "2025年1月2日。译者：Ada。"), ("/en", "Jan. 2, 2025. Translated by Ada.")],
)
def test_a_translated_articles_translator_is_named_with_its_source(client, interface, sentence):
    credited(source_author="Ines Okafor", source_date=date(2025, 1, 2))
    soup = page(client, f"{interface}/notes/warps/")
    assert text_of(soup.select_one(".source-box")).endswith(sentence)
    # With the source, not again beside the date; the co-authors stay there.
    assert "Ada" not in text_of(soup.select_one(".note-credits"))


def feed(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert feedparser.parse(response.content).bozo == 0
    return ET.fromstring(response.content)  # noqa: S314 (our own feed)


def test_rss_names_every_author_and_the_translator_in_a_dc_creator_each(client):
    credited()
    make_note(slug="plain")
    items = {item.findtext("link"): item for item in feed(client, "/feed/").iter("item")}
    creators = [e.text for e in items[f"{SITE}/notes/warps/"].findall(f"{DC}creator")]
    assert creators == ["林舟", "Grace", "王五", "Ada"]
    plain = [e.text for e in items[f"{SITE}/notes/plain/"].findall(f"{DC}creator")]
    assert plain == ["林舟"]  # as before: the site's author alone


def test_atom_names_the_co_authors_and_translator_as_contributors(client):
    credited()
    entry = feedparser.parse(client.get("/feed/atom/").content).entries[0]
    assert entry.author == "林舟"
    assert [c["name"] for c in entry.contributors] == ["Grace", "王五", "Ada"]
    [xml_entry] = feed(client, "/feed/atom/").iter(f"{ATOM}entry")
    assert [e.text for e in xml_entry.iter(f"{ATOM}name")] == ["林舟", "Grace", "王五", "Ada"]


def test_a_co_author_who_is_the_site_author_is_named_once(client):
    make_note(slug="warps", coauthors="林舟, Grace")
    [item] = feed(client, "/feed/").iter("item")
    assert [e.text for e in item.findall(f"{DC}creator")] == ["林舟", "Grace"]
    [entry] = feed(client, "/feed/atom/").iter(f"{ATOM}entry")
    assert [c.findtext(f"{ATOM}name") for c in entry.iter(f"{ATOM}contributor")] == ["Grace"]
