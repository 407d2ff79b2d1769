"""WebSub: every feed names its hub and itself, and publishing a note tells the hub which
feeds changed, in the background, retried; with no hub configured nothing of it happens.

The hub is a real HTTP server (tests/websub_hub.py); the pings go through the real
background runner (tests/background.py)."""

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import feedparser
import pytest
import time_machine
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.mail.websub import MAX_ATTEMPTS, ping_hub_for
from blog.models import Language, Note, SiteSettings, Status
from tests.background import run_queued_tasks
from tests.conftest import clear_test_cache
from tests.factories import make_draft, make_note, make_scheduled, make_series, make_tag
from tests.websub_hub import StubHub

SITE = "https://blog.example"
HUB = "https://hub.example/publish"
FORMATS = ["rss", "atom"]
in_committed_transactions = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SITE_URL = SITE
    settings.BIJI_WEBSUB_HUB = ""


@pytest.fixture
def websub_hub(settings):
    with StubHub() as hub:
        settings.BIJI_WEBSUB_HUB = hub.url
        yield hub


@pytest.fixture
def no_wait(settings):
    """Retries due at once (the backoff is blog.background's, tested there)."""
    settings.TASKS = {
        "default": {**settings.TASKS["default"], "OPTIONS": {"max_attempts": 3, "retry_delay": 0}}
    }


@pytest.fixture
def blog(db):
    """A tag, a series, a note in each language (each scope's feed has an entry)."""
    SiteSettings.objects.create(title="笔记 Test")
    scheduling, gpu = make_tag("Scheduling", "调度"), make_series(slug="gpu")
    make_note(title="GPU 调度", tags=[scheduling], series=gpu)
    make_note(title="Warp scheduling", language=Language.ENGLISH)
    return {"tag": scheduling, "series": gpu}


def feed_paths():
    scopes = [
        ("all", {}),
        ("tag", {"slug": "scheduling"}),
        ("series", {"slug": "gpu"}),
        ("language", {"language": "zh-hans"}),
        ("language", {"language": "en"}),
    ]
    return [reverse(f"feeds:{scope}-{fmt}", kwargs=kw) for scope, kw in scopes for fmt in FORMATS]


def links(response, rel):
    parsed = feedparser.parse(response.content)
    assert parsed.bozo == 0
    return [link.href for link in parsed.feed.links if link.rel == rel]


def ping_tasks():
    return DBTaskResult.objects.filter(task_path__endswith=".ping_hub")


# --- the setting -------------------------------------------------------------------------


def hub_setting(value):
    """``settings.BIJI_WEBSUB_HUB`` on a fresh start with ``BIJI_WEBSUB_HUB=value``: the
    value, or the error that stops the start."""
    env = {**os.environ, "BIJI_WEBSUB_HUB": value, "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(  # noqa: S603 (this Python, a fixed program)
        [sys.executable, "-c", "from django.conf import settings; print(settings.BIJI_WEBSUB_HUB)"],
        cwd=Path(__file__).resolve().parent.parent,
        env={**env, "DJANGO_SECRET_KEY": "test-only"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result.stdout.strip() if result.returncode == 0 else result.stderr


def test_the_hub_comes_from_the_environment_and_must_be_a_web_address():
    assert hub_setting("") == ""
    assert hub_setting(" https://pubsubhubbub.appspot.com/ ") == "https://pubsubhubbub.appspot.com/"
    assert hub_setting("http://127.0.0.1:8080/hub?x=1") == "http://127.0.0.1:8080/hub?x=1"
    for wrong in (
        "pubsubhubbub.appspot.com",
        "ftp://hub.example/",
        "https://a@hub.example/",
        "https://hub.example/a b",
        'https://hub.example/">',
    ):
        assert "ImproperlyConfigured: BIJI_WEBSUB_HUB=" in hub_setting(wrong), wrong


# --- what feeds say ----------------------------------------------------------------------


@pytest.mark.parametrize("path", feed_paths())
def test_every_feed_names_the_hub_and_itself_in_the_feed_and_the_link_header(
    client, blog, settings, path
):
    settings.BIJI_WEBSUB_HUB = HUB
    response = client.get(path)
    assert response.status_code == 200
    assert links(response, "hub") == [HUB]
    assert links(response, "self") == [SITE + path]
    assert response["Link"] == f'<{HUB}>; rel="hub", <{SITE + path}>; rel="self"'


@pytest.mark.parametrize("path", feed_paths())
def test_without_a_hub_a_feed_names_itself_only(client, blog, path):
    response = client.get(path)
    assert links(response, "self") == [SITE + path]
    assert links(response, "hub") == []
    assert "Link" not in response and b'rel="hub"' not in response.content


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_feed_from_the_page_cache_keeps_its_link_header_and_bytes(client, blog, settings, fmt):
    settings.BIJI_WEBSUB_HUB = HUB
    path = reverse(f"feeds:all-{fmt}")
    first, second = client.get(path), client.get(path)
    assert (first["X-Page-Cache"], second["X-Page-Cache"]) == ("miss", "hit")
    assert second["Link"] == first["Link"] == f'<{HUB}>; rel="hub", <{SITE + path}>; rel="self"'
    assert second.content == first.content
    assert links(second, "hub") == [HUB]
    clear_test_cache()  # built again: the same bytes, so the same ETag
    third = client.get(path)
    assert third["X-Page-Cache"] == "miss" and third.content == first.content
    assert third["ETag"] == first["ETag"] and third["Link"] == first["Link"]


# --- pings -------------------------------------------------------------------------------


def expected_feeds(*scopes):
    return sorted(
        SITE + reverse(f"feeds:{scope}-{fmt}", kwargs=kw) for scope, kw in scopes for fmt in FORMATS
    )


@in_committed_transactions
def test_publishing_pings_the_hub_once_for_exactly_the_feeds_the_note_is_in(
    admin_client, websub_hub
):
    scheduling, math = make_tag("Scheduling", "调度"), make_tag("Math", "数学")
    gpu, essays = make_series(slug="gpu"), make_series(slug="essays")
    make_note(title="Elsewhere", tags=[math], series=essays)
    run_queued_tasks()
    websub_hub.pings.clear()
    draft = make_draft(title="GPU 调度", tags=[scheduling], series=gpu)
    run_queued_tasks()
    assert websub_hub.pings == []  # a draft is in no feed

    admin_client.post(
        reverse("admin:blog_note_changelist"),
        {"action": "publish_now", "_selected_action": [draft.pk]},
    )
    assert Note.objects.get(pk=draft.pk).is_published()
    run_queued_tasks()

    # A Chinese note with no English version is listed in both interfaces (the site's
    # settings allow it), so both languages' feeds show it; the other tag and series do not.
    assert sorted(websub_hub.pinged_urls()) == expected_feeds(
        ("all", {}),
        ("language", {"language": "zh-hans"}),
        ("language", {"language": "en"}),
        ("series", {"slug": "gpu"}),
        ("tag", {"slug": "scheduling"}),
    )
    # As hubs expect: a form-encoded publish request per feed, all over one connection.
    for ping in websub_hub.pings:
        assert ping.path == "/hub"
        assert ping.content_type == "application/x-www-form-urlencoded"
        assert ping.form["hub.mode"] == ["publish"] and len(ping.urls) == 1
    assert len({ping.connection for ping in websub_hub.pings}) == 1
    # The topics are the feeds' own URLs, as each names itself (rel="self").
    for url in websub_hub.pinged_urls():
        assert links(admin_client.get(url.removeprefix(SITE)), "self") == [url]

    run_queued_tasks()
    assert len(websub_hub.pings) == 10  # once


@in_committed_transactions
def test_a_language_feed_that_leaves_other_languages_out_is_not_pinged(websub_hub):
    SiteSettings.objects.create(show_other_languages=False)
    make_note(title="只有中文")
    run_queued_tasks()
    assert sorted(websub_hub.pinged_urls()) == expected_feeds(
        ("all", {}), ("language", {"language": "zh-hans"})
    )


@in_committed_transactions
def test_a_translation_published_pings_its_original_feeds_too(websub_hub):
    original = make_note(title="GPU 调度", tags=[make_tag("CUDA", "CUDA")])
    run_queued_tasks()
    websub_hub.pings.clear()
    make_note(title="GPU scheduling", language=Language.ENGLISH, translation=original)
    run_queued_tasks()
    # The English feed now shows the translation instead of the original; the original's
    # feeds show it with the translation linked.
    assert sorted(websub_hub.pinged_urls()) == expected_feeds(
        ("all", {}),
        ("language", {"language": "zh-hans"}),
        ("language", {"language": "en"}),
        ("tag", {"slug": "cuda"}),
    )


@in_committed_transactions
def test_an_edit_of_a_published_note_pings_and_a_draft_edit_does_not(websub_hub):
    note = make_note(title="Old title")
    draft = make_note(title="草稿", status=Status.DRAFT)  # returned to draft: a date, no feed
    run_queued_tasks()
    websub_hub.pings.clear()
    queued = ping_tasks().count()

    draft.body = "还没写完。"
    draft.save()
    draft.tags.add(make_tag("Math", "数学"))
    run_queued_tasks()
    assert websub_hub.pings == [] and ping_tasks().count() == queued

    note.title = "New title"
    note.save()
    run_queued_tasks()
    assert SITE + reverse("feeds:all-atom") in websub_hub.pinged_urls()


@in_committed_transactions
def test_saves_that_change_nothing_a_feed_shows_do_not_ping(websub_hub):
    note = make_note()
    run_queued_tasks()
    before = ping_tasks().count()
    note.render()  # a re-render: same text
    note.announced_at = timezone.now()
    note.save(update_fields=["announced_at"])  # the email's record
    with pytest.raises(RuntimeError), transaction.atomic():
        note.title = "Rolled back"
        note.save()
        raise RuntimeError
    assert ping_tasks().count() == before


@in_committed_transactions
def test_a_new_tag_on_a_published_note_pings_the_tag_feed(websub_hub):
    note = make_note()
    run_queued_tasks()
    websub_hub.pings.clear()
    note.tags.add(make_tag("Math", "数学"))
    run_queued_tasks()
    assert SITE + reverse("feeds:tag-rss", kwargs={"slug": "math"}) in websub_hub.pinged_urls()


@in_committed_transactions
def test_one_transaction_is_one_ping_per_feed(websub_hub):
    with transaction.atomic():  # an import, say
        notes = [make_note() for _ in range(5)]
        ping_hub_for(notes[0])  # what the email's announcement calls: nothing more
    assert ping_tasks().count() == 1
    run_queued_tasks()
    urls = websub_hub.pinged_urls()
    assert len(urls) == len(set(urls)) == 6  # the site's and two languages' feeds


@in_committed_transactions
def test_a_scheduled_note_pings_once_when_its_time_comes(websub_hub):
    note = make_scheduled()
    due = note.published_at
    note.body += "\n\nOne more line."
    note.save()  # the same time again: still one ping waiting
    run_queued_tasks()
    assert websub_hub.pings == [] and ping_tasks().filter(status="READY").count() == 1

    earlier = due - timedelta(days=1)
    note.published_at = earlier
    note.save()  # brought forward: a ping at the new time; the first finds the time moved
    with time_machine.travel(earlier + timedelta(minutes=1), tick=False):
        run_queued_tasks()
    assert SITE + reverse("feeds:all-rss") in websub_hub.pinged_urls()
    assert len(websub_hub.pings) == 6
    with time_machine.travel(due + timedelta(minutes=1), tick=False):
        run_queued_tasks()
    assert len(websub_hub.pings) == 6
    assert not ping_tasks().filter(status="READY").exists()


@in_committed_transactions
def test_a_hub_that_is_away_is_tried_again_and_a_refusal_is_not(websub_hub, no_wait):
    websub_hub.answer(503)
    make_note()
    run_queued_tasks()
    task = ping_tasks().get()
    assert task.status == TaskResultStatus.SUCCESSFUL and len(task.worker_ids) == 2
    assert websub_hub.pings[0].urls == websub_hub.pings[6].urls  # sent again

    websub_hub.answer(404)
    make_note()
    run_queued_tasks()
    task = ping_tasks().exclude(status=TaskResultStatus.SUCCESSFUL).get()
    assert task.status == TaskResultStatus.FAILED and len(task.worker_ids) == 1
    assert "404 Not Found not now" in task.traceback


@in_committed_transactions
def test_a_hub_that_cannot_be_reached_is_tried_until_the_attempts_run_out(settings, no_wait):
    gone = StubHub()
    gone.stop()  # nothing listens at its address any more
    settings.BIJI_WEBSUB_HUB = gone.url
    make_note()
    run_queued_tasks()
    task = ping_tasks().get()
    assert task.status == TaskResultStatus.FAILED and len(task.worker_ids) == MAX_ATTEMPTS
    assert task.exception_class_path == "blog.mail.hub_client.HubUnavailable"


@in_committed_transactions
def test_no_hub_configured_no_task_and_no_request(settings):
    with StubHub() as hub:  # running, but not named in the settings
        note = make_note()
        note.title = "Edited"
        note.save()
        ping_hub_for(note)
        run_queued_tasks()
        assert not ping_tasks().exists() and hub.pings == []
