"""The fediverse in the admin: followers per actor with their counts, approving and refusing
Follows by hand, blocking a domain (its followers go), and the likes, boosts and replies of each
note, counted per note, a reply's text escaped like any other."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from blog.fediverse.follow_answers import deliver_answer
from blog.models import DomainBlock, Follower, FollowerState, Reaction, ReactionKind
from tests.factories import make_note

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fediverse(settings):
    settings.SITE_URL = "https://notes.example"
    settings.BIJI_FEDIVERSE = True
    settings.BIJI_FEDIVERSE_ACTORS = ["blog", "zh", "en"]


def make_follower(actor, host, name="alice", state=FollowerState.ACCEPTED):
    remote_actor = f"https://{host}/users/{name}"
    return Follower.objects.create(
        actor=actor,
        remote_actor=remote_actor,
        handle=f"{name}@{host}",
        inbox=f"{remote_actor}/inbox",
        follow_id=f"https://{host}/follows/{name}-{actor}",
        state=state,
    )


def queued(kind):
    return [
        task.args_kwargs["args"]
        for task in DBTaskResult.objects.filter(task_path=deliver_answer.module_path)
        if task.args_kwargs["args"][0] == kind
    ]


def facet_counts(page, parameter):
    """{choice text: count} of one filter's choices ("en (2)" → {"en": 2})."""
    soup = BeautifulSoup(page, "html.parser")
    counts = {}
    for link in soup.select(f'#changelist-filter a[href*="{parameter}="]'):
        text, _, count = link.get_text(" ", strip=True).rpartition("(")
        counts[text.strip()] = int(count.rstrip(")"))
    return counts


def test_followers_are_listed_per_actor_with_counts(staff_client):
    make_follower("en", "mastodon.example", "alice")
    make_follower("en", "mastodon.example", "bob")
    make_follower("zh", "bovine.example", "carol")
    page = staff_client.get(reverse("admin:blog_follower_changelist")).content.decode()
    assert "alice@mastodon.example" in page and "carol@bovine.example" in page
    assert facet_counts(page, "actor") == {"en": 2, "zh": 1}
    only_en = staff_client.get(reverse("admin:blog_follower_changelist"), {"actor": "en"})
    assert "carol@bovine.example" not in only_en.content.decode()


def test_approving_a_follow_accepts_it_and_queues_the_accept(staff_client):
    waiting = make_follower("en", "mastodon.example", state=FollowerState.PENDING)
    response = staff_client.post(
        reverse("admin:blog_follower_changelist"),
        {"action": "approve", "_selected_action": [waiting.pk]},
    )
    assert response.status_code == 302
    waiting.refresh_from_db()
    assert waiting.state == FollowerState.ACCEPTED
    assert queued("Accept") == [
        ["Accept", "en", waiting.follow_id, waiting.remote_actor, waiting.inbox]
    ]


def test_refusing_a_follower_tells_it_and_removes_it(staff_client):
    follower = make_follower("zh", "mastodon.example", state=FollowerState.PENDING)
    staff_client.post(
        reverse("admin:blog_follower_changelist"),
        {"action": "refuse", "_selected_action": [follower.pk]},
    )
    assert not Follower.objects.exists()
    assert [args[:3] for args in queued("Reject")] == [["Reject", "zh", follower.follow_id]]


def test_blocking_a_domain_removes_its_followers(staff_client):
    make_follower("en", "spam.example", "a")
    make_follower("zh", "eu.spam.example", "b")
    kept = make_follower("en", "mastodon.example", "c")
    response = staff_client.post(
        reverse("admin:blog_domainblock_add"), {"domain": "Spam.Example", "reason": "spam"}
    )
    assert response.status_code == 302
    assert DomainBlock.objects.get().domain == "spam.example"
    assert list(Follower.objects.all()) == [kept]


def test_reactions_are_counted_per_note_and_a_reply_is_shown_as_text(staff_client):
    busy = make_note(title="Warp scheduling", language="en")
    quiet = make_note(title="Pinned memory", language="en")
    for number in range(3):
        Reaction.objects.create(
            note=busy,
            kind=ReactionKind.LIKE,
            remote_actor=f"https://m.example/users/{number}",
            object_id=f"https://m.example/likes/{number}",
        )
    Reaction.objects.create(
        note=quiet,
        kind=ReactionKind.REPLY,
        remote_actor="https://m.example/users/x",
        object_id="https://m.example/notes/1",
        content="<b>bold?</b>",
    )
    page = staff_client.get(reverse("admin:blog_reaction_changelist")).content.decode()
    assert facet_counts(page, "note") == {"Warp scheduling": 3, "Pinned memory": 1}
    assert "&lt;b&gt;bold?&lt;/b&gt;" in page and "<b>bold?</b>" not in page


def test_off_the_fediverse_is_not_in_the_admin(staff_client, settings):
    settings.BIJI_FEDIVERSE = False
    index = staff_client.get(reverse("admin:index")).content.decode()
    assert reverse("admin:blog_follower_changelist") not in index
