"""A note as an email: the whole note in HTML and in plain text, one message per subscriber.

:class:`NoteEmail` renders a note once (templates ``email/note.html`` and ``email/note.txt``,
in the note's language: "Read on the site", "Unsubscribe" are worded as the note is written)
and :meth:`NoteEmail.message` makes each subscriber's message from it. Only the recipient,
the unsubscribe link and the Message-ID differ from one message to the next, so 10,000
messages cost one rendering and one CSS inlining.

* **HTML**: a table layout one column wide (640 px at most), which Gmail, Apple Mail and
  Outlook all lay out the same; the note as :mod:`.email_html` prepares it; every style
  inline (css-inline: the template's rules and the Pygments style's, so code is coloured
  in clients that drop ``<style>``). The site's name, the note's title linking to it, a
  "Read on the site" link and a visible unsubscribe link. No tracking pixel, no link
  rewritten: every address is the site's own or the author's.
* **Text**: the note as a text reader shows its feed entry (:mod:`.plain_text`), with the
  same links.
* **Headers**: ``Message-ID`` is the delivery's (stored when it was queued, so a message
  sent again after a crash is recognisably the same); ``List-Unsubscribe`` with the https
  link of :func:`blog.mail.urls_for.unsubscribe_url` and ``List-Unsubscribe-Post:
  List-Unsubscribe=One-Click`` (RFC 8058: a mail client's "Unsubscribe" button POSTs to the
  link, no cookie, no page); a ``mailto:`` beside it only when ``BIJI_MAIL_UNSUBSCRIBE_MAILTO``
  names a mailbox someone reads; ``List-Id`` names the site. RFC 8058 also wants a DKIM
  signature covering these headers: the mail server or provider signs (docs/email.md).

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
from blog.mail.plain_text import html_to_text
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
    """The email of ``note``: ``delivery``'s message to its subscriber, or (no delivery) the
    author's test of it to the addresses ``to``, with a Message-ID of its own and the
    unsubscribe link of the address if it subscribed, else the subscribe page's."""
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
