"""Only addresses biji can deliver to come in: an RFC 2047 encoded-word (``=?utf-8?q?…?=``),
a non-ASCII local part (Django's email would send it as an encoded-word), invisible
characters, quotes, IP literals and over-long parts are refused at the subscribe form, at the
import and in the admin, each with a message that says why, in the reader's language; nothing
is mailed to them. Internationalised domains stay accepted, and are mailed to as their
``xn--`` form through a real SMTP server."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from blog.mail.addresses import InvalidAddress, normalise_address
from blog.models import Subscriber
from tests import smtp_server as smtp
from tests.background import run_queued_tasks

smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

pytestmark = pytest.mark.django_db(transaction=True)  # confirmations queue after the commit

ENCODED = "=?utf-8?q?ann?=@example.com"
REFUSED = {
    ENCODED: "is how a mail program encodes a name",
    "=?UTF-8?B?5byg5LiJ?=@example.com": "is how a mail program encodes a name",
    "ann=?x@example.com": "is how a mail program encodes a name",
    "张三@example.com": "Before the @, only Latin letters",
    "ann\u200b@example.com": "an invisible character",
    "ann@exa\u200bmple.com": "an invisible character",
    "ann\u202e@example.com": "an invisible character",  # a right-to-left override
    "ann@example\u00a0.com": "an invisible character",
    '"ann smith"@example.com': "quotation marks",
    "ann@[192.0.2.1]": "IP address",
    "a" * 65 + "@example.com": "too long",
}
ACCEPTED = {
    "Ann.Lee+blog@Example.COM": "Ann.Lee+blog@example.com",
    "o'brien@example.ie": "o'brien@example.ie",
    "=cmd@example.com": "=cmd@example.com",  # "=" alone opens no encoded-word
    "duzhe@例子.中国": "duzhe@例子.中国",
    "anna@müller.DE": "anna@müller.de",
    "x@xn--fsqu00a.xn--fiqs8s": "x@xn--fsqu00a.xn--fiqs8s",
    "a" * 64 + "@example.com": "a" * 64 + "@example.com",
}


@pytest.mark.parametrize(("address", "why"), REFUSED.items(), ids=range(len(REFUSED)))
def test_the_rule_refuses_what_cannot_be_delivered_and_says_why(address, why):
    with pytest.raises(InvalidAddress) as refused:
        normalise_address(address)
    with translation.override("en"):
        assert refused.value.specific and why in str(refused.value.message)


def test_the_rule_keeps_ascii_local_parts_and_internationalised_domains():
    assert {raw: normalise_address(raw) for raw in ACCEPTED} == ACCEPTED


def subscribe(address, language="en"):
    prefix = "/en" if language == "en" else ""
    return Client().post(f"{prefix}/subscribe/", {"email": address, "wants": "both"})


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "is how a mail program encodes a name, not an address"),
        ("zh-hans", "是邮件程序对名字的编码，不是地址"),
    ],
)
def test_the_form_refuses_an_encoded_word_in_the_reader_s_language(smtp_server, language, says):
    response = subscribe(ENCODED, language)
    assert response.status_code == 400
    page = response.content.decode()
    assert says in page and 'aria-invalid="true"' in page
    run_queued_tasks()
    assert not Subscriber.objects.exists()
    assert smtp_server.received() == []


def test_an_internationalised_domain_is_subscribed_and_mailed_as_its_ascii_form(smtp_server):
    assert subscribe("anna@müller.de").status_code == 200
    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)
    assert received.rcpt_tos == ["anna@xn--mller-kva.de"]


def test_the_import_refuses_them_line_by_line_and_mails_none(smtp_server):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    rows = [ENCODED, "张三@example.com", "ok@example.com"]
    response = client.post(
        reverse("admin:blog_subscriber_import"),
        {
            "file": SimpleUploadedFile("list.csv", ("email\n" + "\n".join(rows)).encode()),
            "wants": "both",
            "send_confirmations": "on",
        },
    )
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))
    assert f"2 “{ENCODED}” is not accepted. “=?…?=” is how a mail program encodes" in page
    assert "3 “张三@example.com” is not accepted. Before the @, only Latin letters" in page
    assert list(Subscriber.objects.values_list("email", flat=True)) == ["ok@example.com"]
    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)
    assert received.rcpt_tos == ["ok@example.com"]


def test_the_admin_s_add_form_says_why(client):
    client.force_login(get_user_model().objects.create_superuser("lin", "lin@example.com", None))
    response = client.post(
        reverse("admin:blog_subscriber_add"),
        {"email": ENCODED, "wants": "both", "interface_language": "en"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert "is how a mail program encodes a name" in response.content.decode()
    assert not Subscriber.objects.exists()
