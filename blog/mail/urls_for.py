"""The absolute links an email carries, on ``SITE_URL`` (RFC 8058 wants https), in the interface
language the address subscribed in."""

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from blog.mail.tokens import confirm_token, unsubscribe_token
from blog.text.site_url import absolute_url


def interface_language(code):
    """``code`` if it is one of the site's interface languages, else the default one."""
    return code if code in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def _absolute(name, language, **kwargs):
    with translation.override(interface_language(language)):
        return absolute_url(reverse(name, kwargs=kwargs))


def unsubscribe_url(subscriber) -> str:
    """The page (and RFC 8058 one-click POST endpoint) that unsubscribes ``subscriber``."""
    token = unsubscribe_token(subscriber)
    return _absolute("blog:unsubscribe", subscriber.interface_language, token=token)


def confirm_url(subscriber, wants, series_id=None, tag_id=None, language=None) -> str:
    """The page where ``subscriber`` confirms asking for ``wants`` (and a series or tag)."""
    token = confirm_token(subscriber, wants, series_id, tag_id)
    language = language or subscriber.interface_language
    return _absolute("blog:subscribe-confirm", language, token=token)


def subscribe_url(language) -> str:
    """The subscribe page in ``language``'s interface (an expired link points there)."""
    return _absolute("blog:subscribe", language)
