"""Every kind of change, and what follows it once it commits (blog/reactions.py's table): the
parts of the pages it moves (the pages showing them are rendered again, no other), the
background tasks it queues, and the notes whose search document it writes.

One small blog, built once for the module (tests/shared_data.py); each case makes one change
in a transaction of its own and compares what followed with what readers, subscribers, feed
readers and searches must see follow. A change that moves nothing it should, or more, fails
its case by name.
"""

import io
import weakref
from dataclasses import dataclass, field
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core.files.base import ContentFile
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from PIL import Image

from blog.caching import parts
from blog.caching import version as content_version
from blog.models import Language, PartVersion, SearchDocument, SiteSettings, Status, Term
from blog.models.series import place_in_series
from blog.models.translations import link_translation
from blog.reactions import TABLE, connect
from tests.factories import (
    make_draft,
    make_note,
    make_page,
    make_scheduled,
    make_series,
    make_staff,
    make_tag,
)
from tests.shared_data import module_data

pytestmark = pytest.mark.django_db

# The lists of all notes and the two indexes: what a note entering or leaving a list moves.
LISTS = {"notes", "tags", "series"}
NOTES = ("live", "english", "draft", "later")
STALE = "~stale~"  # a search document's tags before the change: written again, it loses it


@module_data
def blog_before_a_change():
    """A published note in a series with a tag, an English note, a draft with another tag, a
    scheduled note, a page, the settings with a link, a glossary term."""
    # Run what the writes queue for after the commit here, inside the module's transaction: a
    # callback left waiting would join the first case's.
    with TestCase.captureOnCommitCallbacks(execute=True):
        site = SiteSettings.objects.create(title="笔记", author="Ada")
        kernels, memory = make_tag("Kernels", "内核"), make_tag("Memory", "内存")
        gpu = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu")
        return SimpleNamespace(
            site=site,
            link=site.navigation.create(label_zh="系列", label_en="Series", url="/series/"),
            kernels=kernels,
            memory=memory,
            gpu=gpu,
            live=make_note(slug="live", tags=[kernels], series=gpu, series_position=1),
            english=make_note(title="Warp scheduling", slug="english", language=Language.ENGLISH),
            draft=make_draft(slug="draft", tags=[memory]),
            later=make_scheduled(slug="later"),
            page=make_page(slug="about"),
            term=Term.objects.create(english="warp", chinese="线程束", slug="warp"),
        )


def edit(obj, update_fields=None, **fields):
    for name, value in fields.items():
        setattr(obj, name, value)
    obj.save(update_fields=update_fields)


def publish_now_in_the_admin(d):
    d.client.force_login(make_staff())
    changelist = reverse("admin:blog_note_changelist")
    response = d.client.post(
        changelist, {"action": "publish_now", "_selected_action": [d.draft.pk]}
    )
    assert response.status_code == 302


def time_passes_beyond(d, note):
    d.clock.move_to(note.published_at + timedelta(minutes=1), tick=False)


def a_png():
    out = io.BytesIO()
    Image.new("RGB", (40, 30), "teal").save(out, "PNG")
    return out.getvalue()


@dataclass
class Case:
    change: object  # a function of the module's data
    parts: set  # the parts moved
    tasks: list = field(default_factory=list)  # the tasks queued ("later": due at a time to come)
    indexed: set = field(default_factory=set)  # the notes whose search document was written


LISTED = {"sitemap", *LISTS}

CASES = {
    "a note's text edited": Case(
        lambda d: edit(d.live, body=d.live.body + "\n\n更正。"),
        {"note:live", "sitemap"},
        ["make_cards", "ping_hub"],
        {"live"},
    ),
    "a new note published with a tag": Case(
        lambda d: make_note(slug="new", tags=[d.memory]),
        {"note:new", "tag:memory", *LISTED},
        ["make_cards", "ping_hub"],
        {"new"},
    ),
    "a draft published": Case(
        lambda d: edit(d.draft, status=Status.PUBLISHED, published_at=timezone.now()),
        {"note:draft", "tag:memory", *LISTED},  # its tags' lists
        ["make_cards", "ping_hub"],
        {"draft"},
    ),
    "a draft published by the author ('publish now')": Case(
        publish_now_in_the_admin,
        {"note:draft", "tag:memory", *LISTED},
        ["announce_note", "make_cards", "ping_hub"],  # a first publication: its email
        {"draft"},
    ),
    "a draft scheduled": Case(
        lambda d: edit(
            d.draft, status=Status.PUBLISHED, published_at=timezone.now() + timedelta(2)
        ),
        {"note:draft", "tag:memory", *LISTED},
        ["make_cards", "ping_hub later"],  # the hub hears of it at its time
        {"draft"},
    ),
    "a scheduled note coming due": Case(
        # Nothing is saved: the content state's key moves (the next publication is in it).
        lambda d: time_passes_beyond(d, d.later),
        set(),
    ),
    "a note returned to draft": Case(
        lambda d: edit(d.live, status=Status.DRAFT),
        {"note:live", "tag:kernels", "series:gpu", *LISTED},
        ["make_cards"],  # no ping: its entry is gone
        {"live"},
    ),
    "a note deleted": Case(
        lambda d: d.live.delete(),
        {"site", "note:live", "tag:kernels", "tags", "sitemap"},
        ["make_cards"],  # its series' and tags' cards (their counts)
        {"live"},
    ),
    "a translation linked": Case(
        lambda d: link_translation(d.live, d.english),
        # Which entry of a pair every list shows: the site's part; the English note follows
        # its original into the series.
        {"site", "note:live", "note:english", "tag:kernels", "series:gpu", *LISTED},
        ["make_cards", "ping_hub"],
        {"live", "english"},
    ),
    "a note placed in a series": Case(
        lambda d: place_in_series(d.english, d.gpu, 2),
        {"note:english", "series:gpu", *LISTED},
        ["make_cards", "ping_hub"],
        {"english"},
    ),
    "a tag added to a note": Case(
        lambda d: d.live.tags.add(d.memory),
        {"note:live", "tag:memory", "tags", "sitemap"},
        ["make_cards", "ping_hub"],  # the tag's feed gains the note
        {"live"},
    ),
    "a tag taken off a note": Case(
        lambda d: d.live.tags.remove(d.kernels),
        {"note:live", "tag:kernels", "tags", "sitemap"},
        ["make_cards"],
        {"live"},
    ),
    "a note's tags cleared": Case(
        lambda d: d.live.tags.clear(),
        {"site", "note:live", "tag:kernels", "tags", "sitemap"},
        ["make_cards"],
        {"live"},
    ),
    "a tag renamed": Case(
        lambda d: edit(d.kernels, name_zh="核函数"),
        {"tag:kernels", "note:live", "tags", "sitemap"},  # its notes show its name
        ["make_cards"],
        {"live"},  # found by its names
    ),
    "a series renamed": Case(
        lambda d: edit(d.gpu, title_en="Notes on GPUs"),
        {"series:gpu", "note:live", "series", "sitemap"},
        ["make_cards"],  # its cards and its notes' name it
    ),
    "a page saved": Case(lambda d: edit(d.page, body="关于我。"), {"site"}),
    "a page deleted": Case(lambda d: d.page.delete(), {"site"}),
    "the site settings saved": Case(
        lambda d: edit(d.site, tagline_en="Notes on GPUs"), {"site"}, ["make_cards"]
    ),
    "a navigation link changed": Case(lambda d: edit(d.link, label_en="All series"), {"site"}),
    "a glossary term added": Case(
        lambda d: Term.objects.create(english="kernel", chinese="内核", slug="kernel"),
        {"glossary", "sitemap"},
        ["recount_pairs", "rerender_for_terms"],
    ),
    "a glossary term's definition changed": Case(
        lambda d: edit(d.term, definition_en="A group of 32 threads."),
        {"glossary", "sitemap"},
        ["rerender_for_terms"],  # its forms are the same: no warning changes
    ),
    "a glossary term's forms changed": Case(
        lambda d: edit(d.term, chinese_variants="束"),
        {"glossary", "sitemap"},
        ["recount_pairs", "rerender_for_terms"],
    ),
    "a glossary term deleted": Case(
        lambda d: d.term.delete(),
        {"glossary", "sitemap"},
        ["recount_pairs", "rerender_for_terms"],
    ),
    "a note given a cover": Case(
        lambda d: edit(d.live, cover=ContentFile(a_png(), name="cover.png")),
        {"note:live", "sitemap"},
        ["make_cards", "make_image_variants", "ping_hub"],
        {"live"},
    ),
    "a share card stored": Case(
        # What the runner's task saves (blog.images.card_store).
        lambda d: edit(d.live, update_fields=["card"], card="cards/live.png"),
        {"note:live"},  # its page's meta tags, nothing else
    ),
}


class Observer:
    """What the database says followed a change: parts moved, tasks queued, notes indexed."""

    def __init__(self, d):
        self.notes = {getattr(d, name).pk: name for name in NOTES}
        self.names = {parts.note(pk): f"note:{name}" for pk, name in self.notes.items()}
        self.names |= {parts.tag(d.kernels.pk): "tag:kernels", parts.tag(d.memory.pk): "tag:memory"}
        self.names[parts.series(d.gpu.pk)] = "series:gpu"

    def name(self, part):
        """A part by the name of the data it is of; one of an object the change made: ":new"."""
        kind, colon, _pk = part.partition(":")
        return self.names.get(part, f"{kind}:new" if colon else part)

    def before(self):
        SearchDocument.objects.update(tags=STALE)  # no signal: the change writes it again
        self.parts = dict(PartVersion.objects.values_list("name", "version"))
        self.tasks = set(DBTaskResult.objects.values_list("id", flat=True))
        self.documents = set(SearchDocument.objects.values_list("note_id", flat=True))
        self.key = content_version.current().key

    def after(self):
        versions = PartVersion.objects.values_list("name", "version")
        moved = {name for name, version in versions if self.parts.get(name) != version}
        queued = DBTaskResult.objects.exclude(id__in=self.tasks)
        tasks = sorted(
            row.task_path.rpartition(".")[2] + (" later" if row.task.run_after else "")
            for row in queued
        )
        stale = set(SearchDocument.objects.filter(tags=STALE).values_list("note_id", flat=True))
        indexed = self.documents - stale  # written again, or removed
        indexed |= set(SearchDocument.objects.values_list("note_id", flat=True)) - self.documents
        return SimpleNamespace(
            parts={self.name(part) for part in moved},
            tasks=tasks,
            indexed={self.notes.get(pk, "new") for pk in indexed},
            key_moved=content_version.current().key != self.key,
        )


@pytest.fixture
def hub(settings):
    settings.BIJI_WEBSUB_HUB = "https://hub.example/"  # pings are queued, never sent here


@pytest.mark.parametrize("name", CASES)
def test_a_change_moves_its_parts_and_queues_its_work(
    name, blog_before_a_change, client, hub, time_machine, django_capture_on_commit_callbacks
):
    """Once the change commits: the parts of exactly the pages that show it move, the work it
    asks for is queued, the notes it concerns are searched as they are now."""
    d, case = blog_before_a_change.copy(), CASES[name]
    d.client, d.clock = client, time_machine
    observer = Observer(d)
    observer.before()
    with django_capture_on_commit_callbacks(execute=True):
        case.change(d)
    seen = observer.after()
    assert (seen.parts, seen.tasks, seen.indexed) == (case.parts, case.tasks, case.indexed)
    assert seen.key_moved, "every case is a change readers see: the pages' key moves"


def receivers_of(signal):
    """(dispatch uid or None, receiver) for every receiver of ``signal`` connected now."""
    found = []
    for (uid, _sender), receiver, *_ in signal.receivers:
        if isinstance(receiver, weakref.ReferenceType):
            receiver = receiver()
        found.append((uid if isinstance(uid, str) else None, receiver))
    return found


def test_the_table_is_the_only_place_receivers_are_connected():
    listed = {(id(event.signal), reaction.uid) for event in TABLE for reaction in event.reactions}
    for signal in {id(event.signal): event.signal for event in TABLE}.values():
        for uid, receiver in receivers_of(signal):
            if getattr(receiver, "__module__", "").startswith("blog."):
                assert (id(signal), uid) in listed, f"{receiver.__qualname__} is not in the table"


def test_each_event_is_one_row_and_connecting_again_changes_nothing():
    events = [(id(event.signal), id(event.sender)) for event in TABLE]
    assert len(events) == len(set(events))
    signals = {id(event.signal): event.signal for event in TABLE}.values()
    before = [len(signal.receivers) for signal in signals]
    connect()
    assert [len(signal.receivers) for signal in signals] == before


def test_the_content_version_moves_before_anything_else_is_queued():
    """Its after-commit callback runs first: a hub pinged fetches feeds already moved."""
    for event in TABLE:
        packages = [reaction.receiver.__module__ for reaction in event.reactions]
        caching = [n for n, package in enumerate(packages) if package.startswith("blog.caching")]
        assert caching == list(range(len(caching))), event.what
