"""A note as an ActivityPub ``Article``: its title, excerpt and body as its feed entry shows them
(formulas readable as text, links absolute: :func:`blog.rendering.feed_html.feed_html`), in its
language (``contentMap``: BCP 47, ``zh-Hans`` or ``en``, which Mastodon takes the post's language
from), its tags as hashtags in that language. Mastodon shows an Article as its title and link,
``summary`` as the content warning.
"""

import hashlib
import json
import re
from datetime import UTC

from django.utils import translation

from blog.fediverse.ids import AS_PUBLIC, actor_id, followers_url, language_actor, note_id
from blog.models import Language
from blog.rendering.feed_html import feed_html
from blog.text.bilingual import html_lang
from blog.text.site_url import absolute_url

CONTEXT = ["https://www.w3.org/ns/activitystreams", {"Hashtag": "as:Hashtag"}]
# What a hashtag cannot hold (Mastodon's hashtags are letters, digits and "_" of any script).
_NOT_IN_HASHTAG = re.compile(r"\W+")


def timestamp(moment) -> str:
    """An ActivityStreams date: UTC, to the second (``2026-12-07T04:54:57Z``)."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def language_tag(language) -> str:
    """The note's language as BCP 47 writes it: ``zh-Hans``, ``en``."""
    return html_lang(language)


def page_url(note) -> str:
    """The note's page, absolute, in its own language's interface (as its feed entry links it)."""
    with translation.override(note.language):
        return absolute_url(note.get_absolute_url())


def tag_name(tag, language) -> str:
    """A tag's name in ``language``, the other one when it has none there."""
    if language == Language.ENGLISH:
        return tag.name or tag.name_zh
    return tag.name_zh or tag.name


def hashtag(name) -> str | None:
    """``#Name`` of a tag name: words joined, each after the first capitalised
    (``Memory model`` → ``#MemoryModel``), Chinese as it is; None when nothing is left."""
    first, *rest = [word for word in _NOT_IN_HASHTAG.split(name) if word] or [None]
    if first is None:
        return None
    return "#" + first + "".join(word[:1].upper() + word[1:] for word in rest)


def hashtags(note) -> list[dict]:
    """The note's tags as ``Hashtag`` objects in its language, linking the tag's page there."""
    tags = []
    with translation.override(note.language):
        for tag in sorted(note.tags.all(), key=lambda tag: tag.slug):
            name = hashtag(tag_name(tag, note.language))
            if name is not None:
                href = absolute_url(tag.get_absolute_url())
                tags.append({"type": "Hashtag", "name": name, "href": href})
    return tags


def article(note, actor=None, *, updated=None) -> dict:
    """The Article of ``note`` as ``actor`` carries it (its language's actor by default);
    ``updated``: the moment of the edit an Update sends (Mastodon applies an edit only with
    one)."""
    actor = actor or language_actor(note.language)
    url = page_url(note)
    language = language_tag(note.language)
    content = feed_html(note.body_html, url)
    document = {
        "id": note_id(note.pk),
        "type": "Article",
        "attributedTo": actor_id(actor),
        "name": note.title,
        "nameMap": {language: note.title},
        "summary": note.excerpt or None,
        "content": content,
        "contentMap": {language: content},
        "mediaType": "text/html",
        "url": url,
        "published": timestamp(note.published_at),
        "inReplyTo": None,
        "tag": hashtags(note),
        "to": [AS_PUBLIC],
        "cc": [followers_url(actor)],
    }
    if updated is not None:
        document["updated"] = timestamp(updated)
    if document["summary"] is None:
        del document["summary"]
    return document


def article_document(note, actor=None) -> dict:
    """The Article with its ``@context``: what ``/ap/notes/<pk>`` serves."""
    return {"@context": CONTEXT, **article(note, actor)}


def fingerprint(note) -> str:
    """What followers were sent of ``note``, as the author wrote it: its title, summary, body,
    language and tags. A re-render changes none of them, so sends no Update."""
    names = sorted(tag_name(tag, note.language) for tag in note.tags.all())
    written = [note.title, note.summary, note.body, note.language, names]
    return hashlib.sha256(json.dumps(written, ensure_ascii=False).encode()).hexdigest()
