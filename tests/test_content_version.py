"""The content version moves once per committed public change, and only then."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from blog.background import after_commit
from blog.caching import version as content_version
from blog.models import ContentVersion, NavigationLink, Note, SiteSettings, Tag
from tests.factories import make_note, make_page, make_scheduled, make_series, make_tag

pytestmark = pytest.mark.django_db


def version():
    return content_version.current().version


def bumps(callbacks):
    """The distinct bumps scheduled: every change of a transaction registers the same one."""
    scheduled = [c for c in callbacks if isinstance(c, content_version._ScheduledBump)]
    return list({id(c): c for c in scheduled}.values())


CHANGES = {
    "note saved": lambda: make_note(),
    "note edited": lambda note, **_: (setattr(note, "title", "新"), note.save()),
    "note deleted": lambda note, **_: note.delete(),
    "note tagged": lambda note, tag, **_: note.tags.add(tag),
    "note untagged": lambda note, tag, **_: note.tags.clear(),
    "tag renamed": lambda tag, **_: (setattr(tag, "name_zh", "新名"), tag.save()),
    "tag deleted": lambda tag, **_: tag.delete(),
    "series saved": lambda **_: make_series(),
    "page saved": lambda **_: make_page(title="Now", slug="now"),
    "settings saved": lambda **_: SiteSettings(title="新").save(),
    "link saved": lambda site, **_: site.navigation.create(label_zh="系", label_en="S", url="/"),
    "link deleted": lambda site, **_: NavigationLink.objects.filter(site=site).delete(),
}


@pytest.mark.parametrize("change", CHANGES)
def test_every_public_change_bumps_once_after_commit(change, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        tag = make_tag()
        note = make_note(tags=[tag])
        site = SiteSettings.objects.create(title="笔记")
        site.navigation.create(label_zh="系列", label_en="Series", url="/series/")
    before = version()
    action = CHANGES[change]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        if change == "note saved":
            action()
        else:
            action(note=note, tag=tag, site=site)
    assert len(bumps(callbacks)) == 1, change
    assert version() == before + 1


def test_one_bump_per_transaction_however_many_changes(django_capture_on_commit_callbacks):
    before = version()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            tag = make_tag("CUDA", "库达")
            for _ in range(5):
                make_note(tags=[tag])
            SiteSettings(title="x").save()
    assert len(bumps(callbacks)) == 1
    assert version() == before + 1


def test_a_rolled_back_savepoint_takes_its_bump_with_it(django_capture_on_commit_callbacks):
    before = version()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    make_note()
                    raise RuntimeError("abort")
            except RuntimeError:
                pass
    assert bumps(callbacks) == []
    assert version() == before
    # The next change in the same transaction schedules a bump of its own.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    make_note()
                    raise RuntimeError("abort")
            except RuntimeError:
                pass
            make_note()
    assert len(bumps(callbacks)) == 1
    assert version() == before + 1


def registered_bumps():
    waiting = [func for _, func, _ in connection.run_on_commit]
    return sum(isinstance(func, content_version._ScheduledBump) for func in waiting)


def test_compacting_a_long_transaction_keeps_one_bump_that_still_follows_rollbacks(
    django_capture_on_commit_callbacks,
):
    """A restore compacts its callbacks between batches (``after_commit.compact``)."""
    before = version()
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            try:
                with transaction.atomic():
                    for _ in range(3):
                        with transaction.atomic():
                            make_note()
                    assert registered_bumps() == 3  # one per note saved
                    after_commit.compact("default")
                    assert registered_bumps() == 1
                    raise RuntimeError("abort")
            except RuntimeError:
                pass
    assert version() == before
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            make_note()
            try:
                with transaction.atomic():
                    make_note()
                    after_commit.compact("default")
                    assert registered_bumps() == 2  # the savepoint's own, kept to roll back
                    raise RuntimeError("abort")
            except RuntimeError:
                pass
            assert registered_bumps() == 1
    assert version() == before + 1


def test_reading_it_is_one_query_and_memoised_per_request():
    with CaptureQueriesContext(connection) as queries:
        content_version.current()
        content_version.current()
    assert len(queries) == 2  # outside a request: always fresh
    content_version.start_request()
    try:
        with CaptureQueriesContext(connection) as queries:
            first = content_version.current()
            assert content_version.current() is first
        assert len(queries) == 1
    finally:
        content_version.finish_request()


def test_a_request_costs_one_version_query_even_when_settings_are_read_twice(client):
    make_note(slug="one")
    client.get("/notes/one/")  # warm the settings' cache entry
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/notes/one/").status_code == 200  # context processor + JSON-LD
    version_reads = [q for q in queries if "blog_contentversion" in q["sql"]]
    assert len(version_reads) == 1


def test_scheduled_publication_moves_the_key_and_last_modified_without_a_save():
    make_note(published_ago=timedelta(days=2))
    scheduled = make_scheduled()
    state = content_version.current()
    assert state.next_scheduled_at == scheduled.published_at
    assert state.seconds_until_next_publication() > 0
    # Its time comes: nothing is saved, the version does not move, but the key does.
    passed = timezone.now() - timedelta(seconds=1)
    Note.objects.filter(pk=scheduled.pk).update(published_at=passed)
    later = content_version.current()
    assert later.version == state.version
    assert later.next_scheduled_at is None
    assert later.key != state.key
    assert later.last_published_at == passed
    assert later.last_modified >= passed


def test_bump_recreates_a_missing_row():
    ContentVersion.objects.all().delete()
    assert content_version.current().version == 1  # recreated on first read
    content_version.bump()
    assert ContentVersion.objects.get().value == 2


def test_drafts_do_not_count_as_scheduled():
    make_note(status="draft", published_ago=timedelta(days=-5))
    assert content_version.current().next_scheduled_at is None


def test_tag_objects_resolve_also_bumps(django_capture_on_commit_callbacks):
    before = version()
    with django_capture_on_commit_callbacks(execute=True):
        Tag.objects.resolve(["新标签"])
    assert version() == before + 1


def test_the_state_query_names_the_models_tables():
    from blog.models import ContentVersion

    for table in (Note._meta.db_table, ContentVersion._meta.db_table):
        assert f"FROM {table}" in content_version.STATE_SQL


def test_the_state_reads_the_same_dates_as_the_orm_to_the_microsecond():
    import time_machine

    now = timezone.now().replace(microsecond=123456)
    passed = make_note(published_ago=timedelta(days=1))
    # Exactly now counts as passed (the published() rule: published_at <= now).
    due = make_note()
    Note.objects.filter(pk=due.pk).update(published_at=now)
    scheduled = make_scheduled()
    later = make_scheduled()
    Note.objects.filter(pk=later.pk).update(published_at=scheduled.published_at + timedelta(1))
    with time_machine.travel(now, tick=False):
        state = content_version.current()
    row = ContentVersion.objects.get()
    assert state.version == row.value and state.changed_at == row.changed_at
    assert state.last_published_at == now != passed.published_at
    assert state.next_scheduled_at == Note.objects.get(pk=scheduled.pk).published_at
    assert all(
        d.tzinfo is not None
        for d in (state.changed_at, state.last_published_at, state.next_scheduled_at)
    )
