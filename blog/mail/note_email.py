"""A note as an email, rendered once and varied per subscriber only in recipient, unsubscribe link
and Message-ID; styles inline, no tracking, RFC 8058 one-click unsubscribe.

May import: :mod:`blog.models`, :mod:`blog.rendering`, :mod:`blog.text`.
"""

from email.utils import formataddr, make_msgid, parseaddr
from html import escape

import css_inline
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from blog.mail.email_html import code_css, email_html
from blog.mail.urls_for import subscribe_url, unsubscribe_url
from blog.models import SiteSettings, Subscriber
from blog.rendering.feed_html import feed_html
from blog.text.bidi import strip_explicit_bidi
from blog.text.site_url import absolute_url

# Stands for the subscriber's unsubscribe link in the rendered note: replaced per message.
UNSUBSCRIBE = "https://unsubscribe.invalid/biji-unsubscribe-link"
_INLINER = css_inline.CSSInliner(load_remote_stylesheets=False, extra_css=code_css())


class NoteEmail:
    """One note, rendered once, and each subscriber's message of it."""

    def __init__(self, note):
        site = SiteSettings.load()
        self.note = note
        with translation.override(note.language):
            self.url = absolute_url(note.get_absolute_url())
            context = {
                "note": note,
                "url": self.url,
                "site_title": site.title,
                "home_url": absolute_url(reverse("blog:home")),
                "series": note.series.display_name if note.series_id else "",
                "cover": email_html(note.cover_html, self.url) if note.cover_html else "",
                "body": email_html(note.body_html, self.url),
                "unsubscribe_url": UNSUBSCRIBE,
            }
            self.html = _INLINER.inline(render_to_string("email/note.html", context))
            # Imported here: its converter (markdownify, Beautiful Soup) costs every process
            # that sends no email ~50 ms to start.
            from blog.mail.plain_text import html_to_text

            context["body"] = html_to_text(feed_html(note.body_html, self.url))
            self.text = render_to_string("email/note.txt", context)
        self.subject = strip_explicit_bidi(note.title)  # no override reverses the inbox line
        self.from_email = sender(site.title)
        self.list_id = formataddr((site.title, f"notes.{_domain(self.from_email)}"))

    def message(self, delivery, subscriber, connection=None):
        """The message of ``delivery`` to ``subscriber`` (an EmailMultiAlternatives)."""
        return self._message(
            [subscriber.email], delivery.message_id, unsubscribe_url(subscriber), connection
        )

    def test_message(self, to, connection=None):
        """The message as a subscriber at the first of ``to`` would get it, for a test."""
        subscriber = Subscriber.objects.filter(email__in=to).first()
        link = (
            unsubscribe_url(subscriber)
            if subscriber is not None
            else subscribe_url(self.note.language)
        )
        message_id = make_msgid(domain=_domain(self.from_email))
        return self._message(list(to), message_id, link, connection)

    def _message(self, to, message_id, link, connection):
        one_click = f"<{link}>"
        if settings.BIJI_MAIL_UNSUBSCRIBE_MAILTO:
            one_click += f", <mailto:{settings.BIJI_MAIL_UNSUBSCRIBE_MAILTO}?subject=unsubscribe>"
        message = EmailMultiAlternatives(
            subject=self.subject,
            body=self.text.replace(UNSUBSCRIBE, link),
            from_email=self.from_email,
            to=to,
            connection=connection,
            headers={
                "Message-ID": message_id,
                "List-Unsubscribe": one_click,
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                "List-Id": self.list_id,
                "Content-Language": "zh-Hans" if self.note.language == "zh-hans" else "en",
            },
        )
        message.attach_alternative(self.html.replace(UNSUBSCRIBE, escape(link)), "text/html")
        return message


def build_note_email(note, delivery=None, *, to=None, connection=None):
    """The email of ``note``: ``delivery``'s message, or without one the author's test to ``to``,
    with its own Message-ID."""
    email = NoteEmail(note)
    if delivery is not None:
        return email.message(delivery, delivery.subscriber, connection)
    return email.test_message(to, connection)


def sender(site_title):
    """``BIJI_MAIL_FROM``, named after the site unless it carries a name of its own."""
    name, address = parseaddr(settings.DEFAULT_FROM_EMAIL)
    return settings.DEFAULT_FROM_EMAIL if name else formataddr((site_title, address))


def _domain(address):
    return parseaddr(address)[1].rpartition("@")[2] or "localhost"
