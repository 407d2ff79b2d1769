"""A note as the fediverse gets it: an Article in its language (``contentMap``), its tags as
hashtags in that language, its formulas readable as text and its links absolute."""

import json

import pytest
from bs4 import BeautifulSoup

from blog.fediverse.activities import create, delete, update
from blog.fediverse.article import article, fingerprint, hashtag
from blog.models import Language
from tests.factories import make_note, make_tag

pytestmark = pytest.mark.django_db
SITE = "https://blog.example"
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"


@pytest.fixture
def notes(settings):
    settings.SITE_URL = SITE
    cuda, memory = make_tag("CUDA", "CUDA"), make_tag("Memory model", "内存模型")
    chinese = make_note(
        "Warp 调度",
        slug="warp",
        body="延迟 $x^2 + \\sqrt{y}$，见[另一篇](/notes/other/)。\n\n![图](/media/w.png)\n",
        tags=[cuda, memory],
    )
    english = make_note(
        "Warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        summary="How a warp is picked.",
        body="See [the other](../other/) and $a < b$.",
        tags=[memory],
    )
    return chinese, english


def text_of(html):
    """What a server that strips markup (Mastodon) keeps of the content."""
    return BeautifulSoup(html, "html.parser").get_text()


def test_a_chinese_note_is_an_article_in_chinese(notes):
    chinese, _ = notes
    doc = article(chinese)
    assert doc["id"] == f"{SITE}/ap/notes/{chinese.pk}"
    assert doc["type"] == "Article" and doc["url"] == f"{SITE}/notes/warp/"
    assert doc["attributedTo"] == f"{SITE}/ap/actors/zh"
    assert doc["to"] == [PUBLIC] and doc["cc"] == [f"{SITE}/ap/actors/zh/followers"]
    assert doc["name"] == "Warp 调度" and doc["nameMap"] == {"zh-Hans": "Warp 调度"}
    assert list(doc["contentMap"]) == ["zh-Hans"] and doc["contentMap"]["zh-Hans"] == doc["content"]
    assert doc["inReplyTo"] is None and "updated" not in doc
    assert doc["summary"] == chinese.excerpt
    # Formulas read as text once, not as TeX; links and images absolute.
    assert "x^2+√y" in text_of(doc["content"]) and "\\sqrt" not in text_of(doc["content"])
    page = BeautifulSoup(doc["content"], "html.parser")
    assert page.a["href"] == f"{SITE}/notes/other/"
    assert page.img["src"] == f"{SITE}/media/w.png"
    assert doc["tag"] == [
        {"type": "Hashtag", "name": "#CUDA", "href": f"{SITE}/tags/cuda/"},
        {"type": "Hashtag", "name": "#内存模型", "href": f"{SITE}/tags/memory-model/"},
    ]


def test_an_english_note_is_an_article_in_english(notes):
    _, english = notes
    doc = article(english)
    assert doc["attributedTo"] == f"{SITE}/ap/actors/en"
    assert doc["url"] == f"{SITE}/en/notes/warp-en/"
    assert list(doc["contentMap"]) == ["en"] and doc["nameMap"] == {"en": "Warp scheduling"}
    assert doc["summary"] == "How a warp is picked."
    assert text_of(doc["content"]) == "See the other and a < b."
    assert BeautifulSoup(doc["content"], "html.parser").a["href"] == f"{SITE}/en/notes/other/"
    assert doc["tag"] == [
        {"type": "Hashtag", "name": "#MemoryModel", "href": f"{SITE}/en/tags/memory-model/"}
    ]
    json.dumps(doc)  # all of it JSON


def test_hashtags_are_words_joined():
    assert hashtag("CUDA") == "#CUDA" and hashtag("内存模型") == "#内存模型"
    assert hashtag("memory model") == "#memoryModel" and hashtag("C++") == "#C"
    assert hashtag("GPU 调度") == "#GPU调度" and hashtag("++") is None


def test_the_activities_carry_the_article_from_the_actor_that_sends_it(notes):
    chinese, _ = notes
    made = create(chinese, "blog")
    assert made["type"] == "Create" and made["actor"] == f"{SITE}/ap/actors/blog"
    assert made["object"]["attributedTo"] == made["actor"]
    assert made["cc"] == made["object"]["cc"] == [f"{SITE}/ap/actors/blog/followers"]
    assert made["id"].startswith(f"{SITE}/ap/activities/")
    edited = update(chinese, "zh")
    assert edited["type"] == "Update" and edited["object"]["updated"] >= made["published"]
    assert edited["id"] != made["id"]
    gone = delete(chinese.pk, "zh")
    assert gone["object"] == {
        "id": f"{SITE}/ap/notes/{chinese.pk}",
        "type": "Tombstone",
        "deleted": gone["published"],
    }


def test_what_followers_were_sent_changes_with_the_text_not_with_a_render(notes):
    chinese, _ = notes
    sent = fingerprint(chinese)
    chinese.render()
    assert fingerprint(chinese) == sent
    chinese.tags.add(make_tag("Kernels", "内核"))
    assert fingerprint(chinese) != sent
