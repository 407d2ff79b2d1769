"""What followers on the fediverse are sent, and how: a note's Create at its first publication to
the followers of the actors that carry it (a pair once to the site's), its Update after an edit,
its Delete when taken down; nothing for an import or a restore. Signed, once per shared inbox,
retried while an inbox is away, a follower that is gone removed.

The followers' servers are one real HTTP server (tests/fediverse_inbox.py) that checks every
signature with biji's own verifier; deliveries go through the real background runner."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.fediverse.delivery import ATTEMPTS, deliver, publish_note
from blog.fediverse.ids import actor_names, key_id
from blog.fediverse.keys import new_key_pair
from blog.models import ActorKey, Follower, FollowerState, Note, Status
from blog.models.revisions import restore, versions_of
from tests.background import run_queued_tasks
from tests.factories import make_draft, make_note, note_form_data
from tests.fediverse_inbox import InboxServer
from tests.imports import import_through_admin, site_folder, zipped

pytestmark = pytest.mark.django_db(transaction=True)

SITE = "https://blog.example"
ANN, LI, DEE = "/users/ann/inbox", "/users/li/inbox", "/users/dee/inbox"
SHARED_BO, SHARED_CY = "/bo-server/inbox", "/cy-server/inbox"


@pytest.fixture(scope="module")
def key_pairs():
    """The actors' keys, made once (RSA keys take a while): {name: (private, public)}."""
    return {name: new_key_pair() for name in actor_names()}


@pytest.fixture
def inboxes(settings, key_pairs):
    """The followers' server; the site on the fediverse."""
    settings.SITE_URL = SITE
    settings.BIJI_FEDIVERSE = True
    for name, (private, public) in key_pairs.items():
        ActorKey.objects.create(actor=name, private_pem=private, public_pem=public)
    keys = {key_id(name): public for name, (_private, public) in key_pairs.items()}
    with InboxServer(keys) as server:
        settings.BIJI_FEDIVERSE_PRIVATE_HOSTS = [server.host]
        yield server


def follow(server, actor, who, inbox, shared=""):
    return Follower.objects.create(
        actor=actor,
        remote_actor=server.url(f"/users/{who}"),
        inbox=server.url(inbox),
        shared_inbox=server.url(shared) if shared else "",
        follow_id=server.url(f"/follows/{who}/{actor}"),
    )


@pytest.fixture
def followers(inboxes):
    """ann follows en, li zh, bo and bea the site (on one server with a shared inbox), and cy
    both the site and en (another server with a shared inbox); pat waits for approval."""
    follow(inboxes, "en", "ann", ANN)
    follow(inboxes, "zh", "li", LI)
    follow(inboxes, "blog", "bo", "/users/bo/inbox", SHARED_BO)
    follow(inboxes, "blog", "bea", "/users/bea/inbox", SHARED_BO)  # bo's server
    follow(inboxes, "blog", "cy", "/users/cy/inbox", SHARED_CY)
    follow(inboxes, "en", "cy", "/users/cy/inbox", SHARED_CY)
    pending = follow(inboxes, "en", "pat", "/users/pat/inbox")
    Follower.objects.filter(pk=pending.pk).update(state=FollowerState.PENDING)
    return inboxes


def publish(client, **fields):
    """The author publishes a new note in the admin; the worker runs."""
    data = note_form_data(status=Status.PUBLISHED, **fields)
    response = client.post(reverse("admin:blog_note_add"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    run_queued_tasks()
    return Note.objects.latest("pk")


def edit(client, note, **fields):
    response = client.post(
        reverse("admin:blog_note_change", args=[note.pk]), note_form_data(note, **fields)
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run_queued_tasks()
    return Note.objects.get(pk=note.pk)


def action(client, name, note):
    client.post(
        reverse("admin:blog_note_changelist"), {"action": name, "_selected_action": [note.pk]}
    )
    run_queued_tasks()


def test_a_first_publication_reaches_the_followers_of_the_site_and_its_language_a_pair_once(
    staff_client, followers
):
    publish(staff_client, title="Warps", language="en", body="English.")
    assert sorted(followers.got()) == [
        (SHARED_BO, "Create", "blog"),
        (SHARED_CY, "Create", "en"),  # its followers of both actors: once, as the language's
        (ANN, "Create", "en"),
    ]
    assert all(received.verified for received in followers.received)
    created = followers.received[0].activity["object"]
    assert created["type"] == "Article" and created["name"] == "Warps"

    followers.clear()
    chinese = publish(staff_client, title="调度", language="zh-hans", body="中文。")
    assert sorted(followers.got()) == [
        (SHARED_BO, "Create", "blog"),
        (SHARED_CY, "Create", "blog"),  # cy follows en, which does not carry it, and the site
        (LI, "Create", "zh"),
    ]

    # Its English translation: the site's followers had the pair already.
    followers.clear()
    publish(staff_client, title="Scheduling", language="en", translation=chinese.pk)
    assert sorted(followers.got()) == [(SHARED_CY, "Create", "en"), (ANN, "Create", "en")]


def test_an_edit_is_an_update_taking_it_down_or_deleting_it_a_delete(staff_client, followers):
    note = publish(staff_client, title="Warps", language="en", body="English.", tags="CUDA")
    followers.clear()
    note = edit(staff_client, note, title="Warps, edited")
    assert sorted(followers.got()) == [
        (SHARED_BO, "Update", "blog"),
        (SHARED_CY, "Update", "en"),
        (ANN, "Update", "en"),
    ]
    updated = followers.received[0].activity["object"]
    assert updated["name"] == "Warps, edited" and updated["updated"] >= updated["published"]

    followers.clear()
    edit(staff_client, note)  # saved as it was
    action(staff_client, "render_again", note)
    assert followers.got() == []
    note = edit(staff_client, note, tags="CUDA, Kernels")  # what followers see: its hashtags
    assert ("Update", "en") in followers.got(ANN)
    assert [t["name"] for t in followers.received[-1].activity["object"]["tag"]] == [
        "#CUDA",
        "#Kernels",
    ]

    followers.clear()
    note = edit(staff_client, note, status=Status.DRAFT)
    assert sorted(followers.got()) == [
        (SHARED_BO, "Delete", "blog"),
        (SHARED_CY, "Delete", "en"),
        (ANN, "Delete", "en"),
    ]
    assert followers.received[0].activity["object"]["type"] == "Tombstone"
    followers.clear()
    action(staff_client, "publish_now", note)  # its first publication has passed
    assert followers.got() == []

    # Deleted: its Delete; but not again for one taken down already, and nothing for one never
    # sent (not published by the author's hand: an import's, say), edited or deleted.
    other = publish(staff_client, title="Other", language="en")
    quiet = make_note("Quiet", language="en")
    followers.clear()
    edit(staff_client, quiet, title="Quiet, edited")
    quiet.delete()
    Note.objects.get(pk=note.pk).delete()
    other_id = f"{SITE}/ap/notes/{other.pk}"
    other.delete()
    run_queued_tasks()
    assert sorted(followers.got()) == [
        (SHARED_BO, "Delete", "blog"),
        (SHARED_CY, "Delete", "en"),
        (ANN, "Delete", "en"),
    ]
    assert {r.activity["object"]["id"] for r in followers.received} == {other_id}


def test_imports_bulk_publishing_restores_and_the_fediverse_off_send_nothing(
    staff_client, followers, tmp_path, settings
):
    today = timezone.localdate().isoformat()
    folder = site_folder(
        tmp_path / "site",
        {"content/posts/new.en.md": f'---\ntitle: "Imported"\ndate: {today}\n---\n\nBody.\n'},
    )
    import_through_admin(staff_client, zipped(folder))
    assert Note.objects.get(title="Imported").is_published()
    action(staff_client, "publish", make_draft(title="Bulk", language="en"))
    assert followers.got() == []

    note = publish(staff_client, title="Warps", language="en", body="First.")
    note = edit(staff_client, note, body="Second.")
    followers.clear()
    first = list(versions_of(note))[-1]
    restore(Note.objects.get(pk=note.pk), first, None)
    run_queued_tasks()
    assert followers.got() == []

    # The fediverse turned off: nothing is queued.
    settings.BIJI_FEDIVERSE = False
    queued = DBTaskResult.objects.filter(task_path=publish_note.module_path).count()
    note = publish(staff_client, title="Off", language="en")
    edit(staff_client, note, status=Status.DRAFT)
    assert followers.got() == []
    assert DBTaskResult.objects.filter(task_path=publish_note.module_path).count() == queued


def test_an_inbox_that_is_gone_away_or_refused(staff_client, inboxes, settings):
    follow(inboxes, "en", "ann", ANN)  # gone: 410
    inboxes.answer_always(ANN, 410)
    follow(inboxes, "blog", "bo", "/users/bo/inbox", SHARED_BO)  # away: 500
    inboxes.answer_always(SHARED_BO, 500)
    follow(inboxes, "blog", "dee", DEE)  # in bo's batch, fine
    Follower.objects.create(  # an address the SSRF guard refuses: not tried
        actor="en",
        remote_actor="http://127.0.0.2:9/users/eve",
        inbox="http://127.0.0.2:9/users/eve/inbox",
        follow_id="http://127.0.0.2:9/follows/eve",
    )

    publish(staff_client, title="Warps", language="en")
    assert not Follower.objects.filter(remote_actor__endswith="/users/ann").exists()
    assert inboxes.got(ANN) == [("Create", "en")] and inboxes.got(DEE) == [("Create", "blog")]
    assert inboxes.got(SHARED_BO) == [("Create", "blog")]
    # bo's server is tried again later, alone, after a wait.
    (later,) = DBTaskResult.objects.filter(
        task_path=deliver.module_path, status=TaskResultStatus.READY
    )
    assert later.args_kwargs["args"][2] == [inboxes.url(SHARED_BO)]
    assert later.run_after > timezone.now() + timedelta(seconds=5)

    # Retried until its attempts run out (the waits brought forward), then given up.
    settings.TASKS = {
        "default": {
            **settings.TASKS["default"],
            "OPTIONS": {**settings.TASKS["default"]["OPTIONS"], "retry_delay": 0},
        }
    }
    DBTaskResult.objects.filter(pk=later.pk).update(run_after=timezone.now())
    run_queued_tasks()
    later.refresh_from_db()
    assert later.status == TaskResultStatus.FAILED
    assert len(inboxes.got(SHARED_BO)) == 1 + ATTEMPTS
    assert inboxes.got(DEE) == [("Create", "blog")]  # never twice
