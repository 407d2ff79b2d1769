"""Subscriber lists in and out as CSV: biji's own export reads back as it was, and the exports
of Ghost, Substack and Mailchimp (in their documented header shapes) come in with an address
confirmed only when the file says it confirmed. Bad rows are reported with their line, a file
that cannot be read says why, and an import never turns an address back on."""

from datetime import UTC, datetime

import pytest
from django.utils import translation

from blog.mail.subscriber_csv import COLUMNS, UnreadableFile, export_lines, read
from blog.mail.subscriber_import import NOT_TURNED_ON, TURNED_OFF, import_reading
from blog.models.subscribers import Subscriber, SubscriberState, Wants
from tests.factories import make_series, make_tag

pytestmark = pytest.mark.django_db

S = SubscriberState

# Ghost: Members → Export (the members-csv package's columns).
GHOST = """\
id,email,name,note,subscribed_to_emails,complimentary_plan,stripe_customer_id,created_at,deleted_at,labels,tiers
5f9b,on@example.com,Ann,,true,false,,2019-10-30T14:52:08.000Z,,"label 1, label 2",
5f9c,off@example.com,Bo,,false,false,,2020-01-02T08:00:00.000Z,,,
5f9d,unsaid@example.com,,,,false,,2021-05-05T10:00:00.000Z,,,
5f9e,deleted@example.com,,,true,false,,2021-05-05T10:00:00.000Z,2022-01-01T00:00:00.000Z,,
"""

# Substack: Subscribers → Export (the signup list).
SUBSTACK = """\
email,active_subscription,expiry,email_disabled,created_at
paid@example.com,true,2026-07-06T16:20:44.000Z,false,2018-08-27T15:06:27.713Z
free@example.com,,,false,2018-12-19T08:03:04.977Z
quiet@example.com,true,2025-06-23T23:41:42.980Z,true,2018-08-29T20:50:03.435Z
"""

MAILCHIMP_HEAD = (
    "Email Address,First Name,Last Name,MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,"
    "CONFIRM_IP,LATITUDE,LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION,"
)
# Mailchimp: Audience → Export, one file per status.
MAILCHIMP_SUBSCRIBED = (
    MAILCHIMP_HEAD
    + """LAST_CHANGED,LEID,EUID,NOTES,TAGS
s1@example.com,Dolor,,2,2023-04-21 11:16:57,,2023-04-21 11:16:58,,,,,,,,,2023-04-21 11:16:58,,,,
s2@example.com,,,2,2018-02-12 10:54:27,,,,,,,,,,,2018-02-12 10:54:27,,,,"""
    + '"""Editors"""\n'
)
MAILCHIMP_UNSUBSCRIBED = (
    MAILCHIMP_HEAD
    + "UNSUB_TIME,UNSUB_CAMPAIGN_TITLE,UNSUB_CAMPAIGN_ID,UNSUB_REASON,UNSUB_REASON_OTHER,"
    + "LEID,EUID,NOTES,TAGS\n"
    + "u1@example.com,,,1,2018-02-12 10:54:27,,2018-02-12 10:54:27,,,,,,,,,2018-07-23 12:19:27,"
    + ",,No longer interested,,,,,\n"
)
MAILCHIMP_CLEANED = (
    MAILCHIMP_HEAD
    + """CLEAN_TIME,CLEAN_CAMPAIGN_TITLE,CLEAN_CAMPAIGN_ID,LEID,EUID,NOTES,TAGS
c1@example.com,,,1,2018-02-05 19:28:23,,2018-02-05 19:28:23,,,,,,,,,2020-03-23 17:30:05,,,,,,
"""
)


@pytest.fixture(autouse=True)
def english():
    """The reports are worded in the active language; these tests read the English."""
    with translation.override("en"):
        yield


def states(text, **kwargs):
    reading = read(text.encode())
    import_reading(
        reading, source="test import", wants=kwargs.get("wants", Wants.BOTH), may_change=True
    )
    return {s.email: s.state for s in Subscriber.objects.all()}


def test_ghost_members_are_confirmed_only_when_the_file_says_they_receive_email():
    assert states(GHOST) == {
        "on@example.com": S.CONFIRMED,
        "off@example.com": S.UNSUBSCRIBED,
        "unsaid@example.com": S.PENDING,
    }
    on = Subscriber.objects.get(email="on@example.com")
    assert on.created_at == datetime(2019, 10, 30, 14, 52, 8, tzinfo=UTC)
    assert on.source == "test import" and on.wants == Wants.BOTH


def test_a_member_deleted_in_ghost_is_reported_not_imported():
    reading = read(GHOST.encode())
    assert reading.format == "ghost"
    assert [line for line, _message in reading.problems] == [5]


def test_substack_confirms_only_active_subscriptions_and_honours_disabled_email():
    assert states(SUBSTACK) == {
        "paid@example.com": S.CONFIRMED,
        "free@example.com": S.PENDING,
        "quiet@example.com": S.UNSUBSCRIBED,
    }


def test_mailchimp_subscribed_rows_are_confirmed_only_with_a_confirm_time():
    assert states(MAILCHIMP_SUBSCRIBED) == {
        "s1@example.com": S.CONFIRMED,
        "s2@example.com": S.PENDING,
    }
    s1 = Subscriber.objects.get(email="s1@example.com")
    assert s1.confirmed_at == datetime(2023, 4, 21, 11, 16, 58, tzinfo=UTC)


def test_mailchimp_unsubscribed_and_cleaned_exports_come_in_turned_off():
    states(MAILCHIMP_UNSUBSCRIBED)
    states(MAILCHIMP_CLEANED)
    u1 = Subscriber.objects.get(email="u1@example.com")
    c1 = Subscriber.objects.get(email="c1@example.com")
    assert (u1.state, c1.state) == (S.UNSUBSCRIBED, S.BOUNCED)
    assert u1.unsubscribed_at == datetime(2018, 7, 23, 12, 19, 27, tzinfo=UTC)
    assert "No longer interested" in u1.state_reason
    assert "cleaned" in c1.state_reason


def test_a_plain_list_of_addresses_comes_in_pending_in_the_chosen_language():
    assert states("Email\nann@example.com\nbo@example.com\n", wants=Wants.ENGLISH) == {
        "ann@example.com": S.PENDING,
        "bo@example.com": S.PENDING,
    }
    assert set(Subscriber.objects.values_list("wants", "interface_language")) == {("en", "en")}


def test_biji_s_export_reads_back_as_it_was():
    series, tag = make_series(slug="cuda-notes"), make_tag()
    moment = datetime(2024, 3, 14, 9, 30, tzinfo=UTC)
    Subscriber.objects.create(
        email="Zh@example.com", wants=Wants.CHINESE, series=series, state=S.CONFIRMED,
        interface_language="zh-hans", source="form", confirmed_at=moment,
    )  # fmt: skip
    Subscriber.objects.create(
        email="=cmd@example.com", wants=Wants.ENGLISH, tag=tag, state=S.BOUNCED,
        state_reason="Postmark: bounced", unsubscribed_at=moment,
    )  # fmt: skip
    fields = ["email", "wants", "series", "tag", "state", "interface_language", "source"]
    fields += ["created_at", "confirmed_at", "unsubscribed_at", "state_reason"]
    before = sorted(Subscriber.objects.values_list(*fields))
    text = "".join(export_lines(Subscriber.objects.select_related("series", "tag")))
    assert text.startswith("\ufeff" + ",".join(COLUMNS) + "\r\n")
    assert "'=cmd@example.com" in text  # a spreadsheet does not run it as a formula
    Subscriber.objects.all().delete()
    reading = read(text.encode())
    assert reading.format == "biji" and not reading.problems
    import_reading(reading, source="ignored", wants=Wants.BOTH, may_change=True)
    assert sorted(Subscriber.objects.values_list(*fields)) == before


def test_bad_rows_are_reported_with_their_line_and_the_rest_imported():
    text = (
        "email,subscribed_to_emails,created_at\n"
        "good@example.com,true,2020-01-01T00:00:00Z\n"
        "not-an-address,true,\n"
        ",true,\n"
        "when@example.com,true,last tuesday\n"
        '"multi\nline@example.com",true,\n'
        "good@EXAMPLE.com,false,\n"
        '"evil@example.com\r\nBcc: all@example.com",true,\n'
    )
    reading = read(text.encode())
    problems = dict(reading.problems)
    assert [row.email for row in reading.rows] == ["good@example.com"]
    assert sorted(problems) == [3, 4, 5, 6, 8, 9], problems
    assert "not-an-address" in problems[3]
    assert "more than once" in problems[8]


def test_an_existing_address_is_never_turned_back_on_but_may_be_turned_off():
    Subscriber.objects.create(email="left@example.com", state=S.UNSUBSCRIBED)
    Subscriber.objects.create(email="on@example.com", state=S.CONFIRMED, wants=Wants.CHINESE)
    outcome = import_reading(
        read(b"email,subscribed_to_emails\nleft@example.com,true\non@example.com,false\n"),
        source="x",
        wants=Wants.BOTH,
        may_change=True,
    )
    assert outcome.refused == {NOT_TURNED_ON: 1} and outcome.done == {TURNED_OFF: 1}
    assert states("email\n") == {
        "left@example.com": S.UNSUBSCRIBED,
        "on@example.com": S.UNSUBSCRIBED,
    }


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"", "empty"),
        (b"name,city\nAnn,Paris\n", "email"),
        ("email\nann@example.com\n".encode("utf-16"), "UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "UTF-8"),
        (b"email\n\x00\x00\n", "binary"),
    ],
)
def test_a_file_that_cannot_be_read_says_why(data, says):
    with pytest.raises(UnreadableFile, match=says):
        read(data)


def test_a_spreadsheet_s_semicolons_and_byte_order_mark_are_read():
    reading = read(
        "\ufeffEmail Address;CONFIRM_TIME\nann@example.com;2020-01-01 10:00:00\n".encode()
    )
    assert reading.format == "mailchimp"
    assert [(row.email, row.state) for row in reading.rows] == [("ann@example.com", S.CONFIRMED)]
