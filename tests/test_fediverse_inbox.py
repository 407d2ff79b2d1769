"""Following from the fediverse: a signed Follow makes a follower and queues a signed Accept (or
waits for the author), an Undo removes it (the Follow embedded, as Mastodon sends it, or named by
id, as bovine does), blocked domains are refused, and likes and boosts of a note are recorded.

The remote server is real (tests/fediverse_remote.py: an HTTP server in a thread, which biji
fetches the follower from and delivers the Accept to)."""

import pytest
from django_tasks_db.models import DBTaskResult

from blog.fediverse.follow_answers import deliver_answer
from blog.fediverse.keys import new_key_pair
from blog.fediverse.remote_actors import forget_keys
from blog.models import ActorKey, DomainBlock, Follower, FollowerState, Reaction, ReactionKind
from tests.factories import make_note
from tests.fediverse_remote import RemoteServer, verifies

SITE = "https://notes.example"
EN = f"{SITE}/ap/actors/en"
INBOX = "/ap/actors/en/inbox"
AP = "application/activity+json"
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def fedi_remote():
    with RemoteServer() as remote:
        yield remote


@pytest.fixture(scope="module")
def actor_pems():
    return {name: new_key_pair() for name in ("blog", "zh", "en")}


@pytest.fixture(autouse=True)
def _fediverse(settings, db, fedi_remote, actor_pems):
    settings.SITE_URL = SITE
    settings.BIJI_FEDIVERSE = True
    settings.BIJI_FEDIVERSE_ACTORS = ["blog", "zh", "en"]
    settings.BIJI_FEDIVERSE_PRIVATE_HOSTS = [fedi_remote.host]
    settings.BIJI_FEDIVERSE_MANUAL_APPROVAL = False
    for name, (private_pem, public_pem) in actor_pems.items():
        ActorKey.objects.create(actor=name, private_pem=private_pem, public_pem=public_pem)
    fedi_remote.received.clear()
    fedi_remote.inbox_status = 202
    forget_keys()


def follow(client, remote, name="alice", path=INBOX, target=EN):
    activity = remote.activity("Follow", name, object=target)
    response = remote.post(client, path, activity, name=name)
    return response, activity


def queued_answers():
    return DBTaskResult.objects.filter(task_path=deliver_answer.module_path)


def test_a_follow_makes_a_follower_and_queues_a_signed_accept(client, fedi_remote, actor_pems):
    response, activity = follow(client, fedi_remote)
    assert response.status_code == 202, response.content
    follower = Follower.objects.get()
    assert follower.actor == "en"
    assert follower.remote_actor == fedi_remote.actor_id("alice")
    assert follower.inbox == fedi_remote.inbox("alice")
    assert follower.shared_inbox == f"http://{fedi_remote.host}/inbox"
    assert follower.handle == f"alice@{fedi_remote.host}"
    assert follower.follow_id == activity["id"]
    assert follower.state == FollowerState.ACCEPTED
    # Its key and the follower were read with one GET (the key is the actor's), signed by the
    # followed actor (bovine refuses unsigned ones).
    [get] = fedi_remote.gets()
    assert get.path == "/users/alice"
    assert f'keyId="{EN}#main-key"' in get.headers["signature"]
    assert verifies(get, actor_pems["en"][1])

    [task] = queued_answers()
    assert fedi_remote.posts() == []  # not in the request: on the background runner
    deliver_answer.call(*task.args_kwargs["args"], **task.args_kwargs["kwargs"])
    [delivered] = fedi_remote.posts()
    assert delivered.path == "/users/alice/inbox"
    accept = delivered.json()
    assert accept["type"] == "Accept" and accept["actor"] == EN
    assert accept["object"]["id"] == activity["id"]
    assert accept["object"]["type"] == "Follow"
    assert verifies(delivered, actor_pems["en"][1])
    assert "digest" in delivered.headers["signature"]


def test_a_follow_through_the_shared_inbox_follows_the_actor_it_names(client, fedi_remote):
    response, _ = follow(client, fedi_remote, path="/ap/inbox", target=f"{SITE}/ap/actors/zh")
    assert response.status_code == 202
    assert Follower.objects.get().actor == "zh"


def test_a_follow_of_another_actor_at_an_actors_inbox_is_refused(client, fedi_remote):
    response, _ = follow(client, fedi_remote, target=f"{SITE}/ap/actors/zh")
    assert response.status_code == 400
    assert not Follower.objects.exists()


def test_undo_with_the_follow_embedded_removes_the_follower(client, fedi_remote):
    follow(client, fedi_remote)
    follow(client, fedi_remote, name="bob")
    embedded = {"type": "Follow", "actor": fedi_remote.actor_id("alice"), "object": EN}
    undo = fedi_remote.activity("Undo", "alice", object=embedded)
    assert fedi_remote.post(client, INBOX, undo).status_code == 202
    assert [f.remote_actor for f in Follower.objects.all()] == [fedi_remote.actor_id("bob")]


def test_undo_naming_the_follow_by_id_removes_the_follower(client, fedi_remote):
    _, activity = follow(client, fedi_remote)
    # As bovine sends it: the Follow's id only, and "to" compacted to a string.
    undo = fedi_remote.activity("Undo", "alice", object=activity["id"], to=EN)
    assert fedi_remote.post(client, INBOX, undo).status_code == 202
    assert not Follower.objects.exists()


def test_only_the_follower_can_undo_its_follow(client, fedi_remote):
    _, activity = follow(client, fedi_remote)
    undo = fedi_remote.activity("Undo", "mallory", object=activity["id"])
    assert fedi_remote.post(client, INBOX, undo, name="mallory").status_code == 202
    embedded = {"type": "Follow", "actor": fedi_remote.actor_id("alice"), "object": EN}
    undo = fedi_remote.activity("Undo", "mallory", object=embedded)
    assert fedi_remote.post(client, INBOX, undo, name="mallory").status_code == 403
    assert Follower.objects.get().remote_actor == fedi_remote.actor_id("alice")


def test_with_manual_approval_a_follow_waits_and_nothing_is_sent(client, fedi_remote, settings):
    settings.BIJI_FEDIVERSE_MANUAL_APPROVAL = True
    response, _ = follow(client, fedi_remote)
    assert response.status_code == 202
    assert Follower.objects.get().state == FollowerState.PENDING
    assert not queued_answers().exists()
    assert client.get("/ap/actors/en", HTTP_ACCEPT=AP).json()["manuallyApprovesFollowers"] is True
    assert client.get("/ap/actors/en/followers").json()["totalItems"] == 0


def test_a_blocked_domain_is_refused_before_anything_is_fetched(client, fedi_remote):
    DomainBlock.objects.create(domain=fedi_remote.host)
    response, _ = follow(client, fedi_remote)
    assert response.status_code == 403
    assert not Follower.objects.exists()
    assert fedi_remote.received == []


def test_blocking_a_parent_domain_blocks_its_subdomains():
    from blog.fediverse.blocks import is_blocked

    DomainBlock.objects.create(domain="Example.COM")
    assert is_blocked("https://mastodon.example.com/users/a")
    assert is_blocked("https://example.com:8443/users/a")
    assert not is_blocked("https://notexample.com/users/a")


def test_likes_and_boosts_of_a_note_are_recorded_once_each(client, fedi_remote):
    note = make_note(title="Warp scheduling", language="en")
    note_id = f"{SITE}/ap/notes/{note.pk}"
    like = fedi_remote.activity("Like", "alice", object=note_id)
    boost = fedi_remote.activity("Announce", "bob", object=note_id)
    assert fedi_remote.post(client, "/ap/inbox", like).status_code == 202
    assert fedi_remote.post(client, "/ap/inbox", boost, name="bob").status_code == 202
    elsewhere = fedi_remote.activity("Like", "alice", object="https://elsewhere.example/1")
    assert fedi_remote.post(client, "/ap/inbox", elsewhere).status_code == 202
    kinds = sorted(Reaction.objects.filter(note=note).values_list("kind", flat=True))
    assert kinds == [ReactionKind.ANNOUNCE, ReactionKind.LIKE]
    # Undo of the like takes it back.
    undo = fedi_remote.activity("Undo", "alice", object=like["id"])
    assert fedi_remote.post(client, "/ap/inbox", undo).status_code == 202
    assert list(Reaction.objects.values_list("kind", flat=True)) == [ReactionKind.ANNOUNCE]


def test_a_follower_is_counted_in_the_followers_collection(client, fedi_remote):
    follow(client, fedi_remote)
    follow(client, fedi_remote, name="bob")
    assert client.get("/ap/actors/en/followers").json()["totalItems"] == 2
    assert client.get("/ap/actors/zh/followers").json()["totalItems"] == 0


def test_an_accept_for_an_undone_follow_is_not_sent(client, fedi_remote):
    follow(client, fedi_remote)
    [task] = queued_answers()
    Follower.objects.all().delete()
    result = deliver_answer.call(*task.args_kwargs["args"], **task.args_kwargs["kwargs"])
    assert result == "no longer following"
    assert fedi_remote.posts() == []
