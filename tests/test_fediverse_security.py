"""What an inbox refuses: forged signatures, a body that is not the one signed, stale or replayed
activities, oversized bodies (before reading them), floods, and key URLs that would make biji
fetch from its own network (SSRF) — and a reply's markup, which is stored as plain text only.

The remote server is real (tests/fediverse_remote.py); the addresses biji must refuse are
refused before any connection is made."""

import email.utils
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from blog.fediverse import remote
from blog.fediverse.keys import new_key_pair
from blog.fediverse.remote_actors import forget_keys
from blog.models import ActorKey, Follower, Reaction, ReactionKind
from tests.factories import make_note
from tests.fediverse_remote import RemoteServer, make_key

SITE = "https://notes.example"
EN = f"{SITE}/ap/actors/en"
INBOX = "/ap/actors/en/inbox"
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def fedi_remote():
    with RemoteServer() as server:
        yield server


@pytest.fixture(scope="module")
def unlisted_remote():
    """A server on 127.0.0.1 that is not in BIJI_FEDIVERSE_PRIVATE_HOSTS: never to be reached."""
    with RemoteServer() as server:
        yield server


@pytest.fixture(scope="module")
def actor_pems():
    return {name: new_key_pair() for name in ("blog", "zh", "en")}


@pytest.fixture(autouse=True)
def _fediverse(settings, db, fedi_remote, unlisted_remote, actor_pems):
    settings.SITE_URL = SITE
    settings.BIJI_FEDIVERSE = True
    settings.BIJI_FEDIVERSE_ACTORS = ["blog", "zh", "en"]
    settings.BIJI_FEDIVERSE_PRIVATE_HOSTS = [fedi_remote.host]
    for name, (private_pem, public_pem) in actor_pems.items():
        ActorKey.objects.create(actor=name, private_pem=private_pem, public_pem=public_pem)
    for server in (fedi_remote, unlisted_remote):
        server.received.clear()
    forget_keys()


def follow_activity(server, name="alice"):
    return server.activity("Follow", name, object=EN)


def refused(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    return response.json()["error"]


def test_a_signature_made_with_another_key_is_refused(client, fedi_remote):
    response = fedi_remote.post(client, INBOX, follow_activity(fedi_remote), key=make_key())
    assert "does not match" in refused(response, 401)
    assert not Follower.objects.exists()


def test_an_unsigned_post_is_refused_without_fetching_anything(client, fedi_remote):
    body = json.dumps(follow_activity(fedi_remote))
    response = client.post(INBOX, body, content_type="application/activity+json")
    refused(response, 401)
    assert fedi_remote.received == []


def test_a_body_other_than_the_one_signed_is_refused(client, fedi_remote):
    signed = follow_activity(fedi_remote)
    sent = json.dumps({**signed, "object": f"{SITE}/ap/actors/zh"}).encode()
    digest = fedi_remote.signed_headers(INBOX, json.dumps(signed).encode())["digest"]
    response = fedi_remote.post(client, INBOX, None, body=sent, digest=digest)
    assert "Digest" in refused(response, 401)


def test_a_stale_date_is_refused(client, fedi_remote):
    stale = email.utils.format_datetime(timezone.now() - timedelta(minutes=10), usegmt=True)
    response = fedi_remote.post(client, INBOX, follow_activity(fedi_remote), date=stale)
    assert "Date" in refused(response, 401)


def test_an_activity_signed_by_someone_else_is_refused(client, fedi_remote):
    """Bob's valid signature does not make Alice follow."""
    activity = follow_activity(fedi_remote, "alice")
    response = fedi_remote.post(client, INBOX, activity, name="bob")
    assert "owner" in refused(response, 401)


def test_an_actor_cannot_speak_for_another_host(client, fedi_remote):
    """Ids on another host than the actor's (an activity's, a reply's) would let it overwrite
    what others sent."""
    activity = {**follow_activity(fedi_remote), "id": "https://mastodon.example/follows/1"}
    assert "host" in refused(fedi_remote.post(client, INBOX, activity), 403)
    note = make_note(language="en")
    reply = {
        "id": "https://mastodon.example/notes/1",
        "type": "Note",
        "attributedTo": fedi_remote.actor_id("alice"),
        "inReplyTo": f"{SITE}/ap/notes/{note.pk}",
        "content": "<p>Not mine</p>",
    }
    create = fedi_remote.activity("Create", "alice", object=reply)
    refused(fedi_remote.post(client, "/ap/inbox", create), 403)
    assert not Follower.objects.exists() and not Reaction.objects.exists()


def test_a_replayed_activity_is_refused(client, fedi_remote):
    activity = follow_activity(fedi_remote)
    assert fedi_remote.post(client, INBOX, activity).status_code == 202
    Follower.objects.all().delete()
    refused(fedi_remote.post(client, INBOX, activity), 409)
    assert not Follower.objects.exists()


def test_an_oversized_body_is_refused_before_it_is_read(client, fedi_remote, settings):
    settings.BIJI_FEDIVERSE_INBOX_MAX_BYTES = 1000
    activity = {**follow_activity(fedi_remote), "padding": "x" * 2000}
    refused(fedi_remote.post(client, INBOX, activity), 413)
    # Its announced length alone is enough (a small body that claims to be large).
    claims = fedi_remote.post(client, INBOX, follow_activity(fedi_remote), content_length=5000)
    refused(claims, 413)
    assert fedi_remote.received == []  # not even a key was fetched


def test_a_flood_from_one_host_gets_429(client, fedi_remote, settings):
    settings.BIJI_FEDIVERSE_INBOX_LIMIT = 3
    statuses = [
        fedi_remote.post(client, INBOX, follow_activity(fedi_remote)).status_code for _ in range(5)
    ]
    assert statuses == [202, 202, 202, 429, 429]


@pytest.mark.parametrize(
    "key_url",
    [
        "https://169.254.169.254/latest/meta-data#main-key",  # a cloud's metadata service
        "https://10.1.2.3/users/alice#main-key",
        "https://[::1]/users/alice#main-key",
        "https://localhost/users/alice#main-key",  # a name that resolves to loopback
        "file:///etc/passwd#main-key",
    ],
)
def test_a_key_url_on_a_private_address_is_refused_without_a_connection(
    client, fedi_remote, key_url
):
    response = fedi_remote.post(client, INBOX, follow_activity(fedi_remote), key_id=key_url)
    assert "key" in refused(response, 401)


def test_a_key_url_on_loopback_not_listed_is_never_reached(client, fedi_remote, unlisted_remote):
    key_url = f"https://{unlisted_remote.host}/users/alice#main-key"
    response = fedi_remote.post(client, INBOX, follow_activity(fedi_remote), key_id=key_url)
    assert "non-public address" in refused(response, 401)
    assert unlisted_remote.received == []


def test_the_guard_refuses_before_connecting():
    for url in (
        "http://169.254.169.254/latest/meta-data",
        "http://example.com/users/a",  # plain http to a public host
        "https://127.0.0.1:1/",
        "https://user:pw@example.com/",
        "gopher://example.com/",
    ):
        with pytest.raises(remote.Refused):
            remote.check_url(url)


def test_a_redirect_to_another_host_is_not_followed(fedi_remote, unlisted_remote, settings):
    settings.BIJI_FEDIVERSE_PRIVATE_HOSTS = [fedi_remote.host, unlisted_remote.host]
    fedi_remote.redirect_to = unlisted_remote.actor_id("alice")
    try:
        with pytest.raises(remote.Refused):
            remote.fetch_json(fedi_remote.actor_id("moved"))
    finally:
        fedi_remote.redirect_to = None
    assert unlisted_remote.received == []


def test_bad_json_is_a_400_and_a_get_of_an_inbox_a_405(client, fedi_remote):
    refused(fedi_remote.post(client, INBOX, None, body=b"{not json"), 400)
    refused(fedi_remote.post(client, INBOX, None, body=b"[1, 2]"), 400)
    get = client.get(INBOX)
    assert "POST" in refused(get, 405) and get["Allow"] == "POST"
    refused(fedi_remote.post(client, "/ap/actors/nobody/inbox", follow_activity(fedi_remote)), 404)


def test_a_reply_is_stored_as_plain_text_and_never_shown_publicly(client, fedi_remote):
    note = make_note(title="Warp scheduling", language="en", slug="warp-scheduling")
    reply = {
        "id": f"http://{fedi_remote.host}/notes/1",
        "type": "Note",
        "attributedTo": fedi_remote.actor_id("alice"),
        "inReplyTo": f"{SITE}/ap/notes/{note.pk}",
        "content": '<p>Nice <a href="https://x.example">@en</a>!<script>alert(1)</script></p>'
        '<p><img src=x onerror="alert(2)">&lt;b&gt;bold?&lt;/b&gt;</p>',
    }
    create = fedi_remote.activity("Create", "alice", object=reply, to=EN)
    assert fedi_remote.post(client, "/ap/inbox", create).status_code == 202
    stored = Reaction.objects.get(kind=ReactionKind.REPLY)
    assert stored.note == note
    assert stored.content == "Nice @en!\n\n<b>bold?</b>"  # text, as the reader typed it
    page = client.get(note.get_absolute_url()).content.decode()
    assert "bold?" not in page and "alert" not in page
