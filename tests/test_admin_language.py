"""The Chinese admin speaks Chinese, in one voice: a tag named in the interface's language in
the admin's messages, the login protection's names in the sidebar, a URL error that says which
links are allowed, and Django's own messages with 你 and full-width punctuation."""

import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from blog.authoring.axes_app import AXES_MESSAGES
from blog.text.catalogue_overrides import DJANGO_MESSAGES
from tests.factories import make_tag, note_form_data

pytestmark = pytest.mark.django_db

HALF_WIDTH_AFTER_CHINESE = re.compile(r"[\u4e00-\u9fff][.,:;?!](\s|$)")


@pytest.fixture
def author(client):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    return client


def messages_after(response):
    """The messages shown after a save, as text (the object's name is a link)."""
    return [re.sub(r"<[^>]+>", "", str(message)) for message in response.context["messages"]]


@pytest.mark.parametrize(
    ("language", "shown", "not_shown"),
    [("zh-hans", "“异步拷贝”", "Async copy"), ("en", "“Async copy”", "异步拷贝")],
)
def test_a_saved_tag_is_named_in_the_admin_s_language(author, language, shown, not_shown):
    tag = make_tag(name="Async copy", name_zh="异步拷贝")
    response = author.post(
        reverse("admin:blog_tag_change", args=[tag.pk]),
        {"name": "Async copy", "name_zh": "异步拷贝", "slug": tag.slug},
        follow=True,
        HTTP_ACCEPT_LANGUAGE=language,
    )
    [message] = messages_after(response)
    assert shown in message and not_shown not in message


def test_a_tag_without_a_chinese_name_is_named_by_its_english_one(author):
    tag = make_tag(name="Kernels", name_zh="")
    response = author.post(
        reverse("admin:blog_tag_change", args=[tag.pk]),
        {"name": "Kernels", "name_zh": "", "slug": tag.slug},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert "“Kernels”" in messages_after(response)[0]


def test_the_login_protection_has_a_name_an_author_understands():
    with translation.override("en"):
        assert str(apps.get_app_config("axes").verbose_name) == "Login protection"


def test_the_login_protection_is_in_chinese_in_the_chinese_sidebar(author):
    html = author.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    section = re.search(r'<div class="app-axes module.*?</div>', html, re.S)[0]
    names = re.findall(r"<a [^>]*>([^<]+)</a>", section) + re.findall(
        r"<caption>\s*<a [^>]*>([^<]+)</a>", section
    )
    assert names and not [name for name in names if re.search("[A-Za-z]{2,}", name)], names


def test_every_string_of_the_login_protection_s_admin_is_translated():
    """Each string django-axes' admin shows, marked in blog/authoring/axes_app.py, is in
    biji's Chinese catalogue (django-axes ships none)."""
    with translation.override("zh-hans"):
        untranslated = [m for m in AXES_MESSAGES if translation.gettext(m) == m]
        assert not untranslated
        assert str(apps.get_app_config("axes").verbose_name) != "Login protection"
    assert {model._meta.app_label for model in admin.site._registry} >= {"axes"}


@pytest.mark.parametrize("url", ["javascript:alert(1)", "mailto:lin@example.com", "/notes/x/"])
def test_a_refused_source_url_says_which_links_are_allowed(author, url):
    response = author.post(
        reverse("admin:blog_note_add"),
        note_form_data(source_url=url),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 200
    [error] = response.context["adminform"].form.errors["source_url"]
    assert "https://" in error and "http://" in error


def test_django_s_messages_speak_with_one_voice_in_chinese():
    with translation.override("zh-hans"):
        for msgid in DJANGO_MESSAGES:
            text = translation.gettext(msgid)
            assert "您" not in text, (msgid, text)
            assert not HALF_WIDTH_AFTER_CHINESE.search(text), (msgid, text)


def test_a_tag_added_and_opened_again_says_so_in_one_voice(author):
    response = author.post(
        reverse("admin:blog_tag_add"),
        {"name": "Scheduling", "name_zh": "调度", "slug": "", "_continue": "1"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    [message] = messages_after(response)
    assert "调度" in message and "您" not in message and not message.endswith(".")
