"""Who gets a note: each confirmed subscriber once, in their language, for their series or tag."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blog.mail.announce import announce
from blog.mail.recipients import recipients
from blog.models import Delivery, Language, Subscriber, SubscriberState, Wants
from blog.models.translations import save_note
from tests.factories import make_note, make_series, make_tag
from tests.mail_data import make_subscriber

pytestmark = pytest.mark.django_db


def emails(note):
    """The addresses the note would be sent to now."""
    return set(
        Subscriber.objects.filter(pk__in=list(recipients(note))).values_list("email", flat=True)
    )


def delivered(note):
    return set(Delivery.objects.filter(note=note).values_list("subscriber__email", flat=True))


@pytest.fixture
def readers():
    return {
        "zh": make_subscriber("zh@example.com", Wants.CHINESE),
        "en": make_subscriber("en@example.com", Wants.ENGLISH),
        "both": make_subscriber("both@example.com", Wants.BOTH),
    }


def test_a_note_reaches_its_languages_subscribers_and_those_of_both(readers):
    chinese = make_note(language=Language.CHINESE)
    english = make_note(language=Language.ENGLISH)
    assert emails(chinese) == {"zh@example.com", "both@example.com"}
    assert emails(english) == {"en@example.com", "both@example.com"}


@pytest.mark.parametrize(
    "state",
    [SubscriberState.PENDING, SubscriberState.UNSUBSCRIBED, SubscriberState.BOUNCED],
)
def test_never_an_address_that_is_not_confirmed(state):
    make_subscriber("reader@example.com", Wants.BOTH, state=state)
    assert emails(make_note()) == set()


def test_a_translated_pair_reaches_a_both_subscriber_once(readers):
    chinese = make_note(language=Language.CHINESE)
    announce(chinese)
    assert delivered(chinese) == {"zh@example.com", "both@example.com"}
    english = make_note(language=Language.ENGLISH, translation=chinese)
    save_note(english)
    # The English version reaches English readers as that note; "both" had the Chinese one.
    assert emails(english) == {"en@example.com"}
    announce(english)
    assert delivered(english) == {"en@example.com"}


def test_the_translation_holding_the_link_or_not_makes_no_difference(readers):
    english = make_note(language=Language.ENGLISH)
    announce(english)
    chinese = make_note(language=Language.CHINESE)
    english.translation = chinese
    save_note(english)
    assert emails(chinese) == {"zh@example.com"}


def test_a_both_subscriber_who_never_got_the_other_note_gets_this_one(readers):
    # The Chinese note went out before this reader subscribed (or was never emailed).
    chinese = make_note(language=Language.CHINESE)
    announce(chinese)
    late = make_subscriber("late@example.com", Wants.BOTH)
    english = make_note(language=Language.ENGLISH, translation=chinese)
    save_note(english)
    assert late.email in emails(english)
    assert "both@example.com" not in emails(english)


def test_a_series_or_tag_subscriber_gets_only_notes_in_it(readers):
    series, other_series = make_series(), make_series()
    tag, other_tag = make_tag("Scheduling", "调度"), make_tag("Memory", "内存")
    make_subscriber("series@example.com", Wants.BOTH, series=series)
    make_subscriber("tag@example.com", Wants.BOTH, tag=tag)
    in_series = make_note(series=series, series_position=1)
    tagged = make_note(tags=[tag, other_tag])
    elsewhere = make_note(series=other_series, series_position=1, tags=[other_tag])
    everyone = {"zh@example.com", "both@example.com"}
    assert emails(in_series) == everyone | {"series@example.com"}
    assert emails(tagged) == everyone | {"tag@example.com"}
    assert emails(elsewhere) == everyone


def test_an_english_only_series_subscriber_gets_the_english_part_only(readers):
    series = make_series()
    make_subscriber("series-en@example.com", Wants.ENGLISH, series=series)
    chinese = make_note(language=Language.CHINESE, series=series, series_position=1)
    english = make_note(language=Language.ENGLISH, series=series, series_position=1)
    assert "series-en@example.com" not in emails(chinese)
    assert "series-en@example.com" in emails(english)


def test_an_address_already_sent_the_note_is_not_sent_it_again(readers):
    note = make_note(language=Language.CHINESE)
    announce(note)
    assert emails(note) == set()
    newcomer = make_subscriber("new@example.com", Wants.CHINESE)
    assert emails(note) == {newcomer.email}


def test_announcing_to_many_reads_and_writes_in_batches_not_per_subscriber():
    """2,500 subscribers: a page of 1,000 read and written at a time, a task queued per 200
    deliveries; no query per address."""
    Subscriber.objects.bulk_create(
        Subscriber(email=f"r{i}@example.com", wants=Wants.BOTH, state=SubscriberState.CONFIRMED)
        for i in range(2500)
    )
    note = make_note()
    with CaptureQueriesContext(connection) as queries:
        queued = announce(note)
    assert queued == 2500 == Delivery.objects.filter(note=note).count()
    assert len(queries) < 80, len(queries)
    # One Message-ID per delivery, all different.
    assert Delivery.objects.values("message_id").distinct().count() == 2500
