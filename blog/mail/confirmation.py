"""The confirmation email of a subscription, and the task that sends it. Its link leads to a button,
so a link scanner subscribes nobody.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import math
from email.utils import make_msgid, parseaddr

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import InterfaceError, OperationalError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django_tasks import task

from blog.mail.note_email import sender
from blog.mail.urls_for import confirm_url, interface_language
from blog.models import Series, SiteSettings, Subscriber, SubscriberState, Tag, Wants
from blog.text.bidi import strip_explicit_bidi
from blog.text.site_url import absolute_url

DAY = 86400


def confirmation_message(subscriber, wants, series_id=None, tag_id=None, language=None):
    """The confirmation email for ``subscriber`` asking for ``wants`` (and a series or tag)
    from the interface ``language``: an :class:`EmailMultiAlternatives` ready to send."""
    language = interface_language(language or subscriber.interface_language)
    site = SiteSettings.load()
    with translation.override(language):
        series = Series.objects.filter(pk=series_id).first() if series_id else None
        tag = Tag.objects.filter(pk=tag_id).first() if tag_id else None
        max_age = settings.BIJI_CONFIRM_MAX_AGE
        context = {
            "site_title": site.title,
            "home_url": absolute_url(reverse("blog:home")),
            "address": subscriber.email,
            "wants": Wants(wants).label,
            "series": series.display_name if series else "",
            "tag": tag.display_name if tag else "",
            "confirm_url": confirm_url(subscriber, wants, series_id, tag_id, language),
            "days": max(1, math.ceil(max_age / DAY)),
            "language": language,
        }
        subject = _("Confirm your subscription to %(site)s") % {
            "site": strip_explicit_bidi(site.title)
        }
        text = render_to_string("email/confirm.txt", context)
        html = render_to_string("email/confirm.html", context)
    from_email = sender(site.title)  # as the notes come: named after the site
    message = EmailMultiAlternatives(subject, text, from_email, to=[subscriber.email])
    message.attach_alternative(html, "text/html")
    message.extra_headers = {
        # On the sender's domain, not this machine's name (Django's default).
        "Message-ID": make_msgid(domain=parseaddr(from_email)[1].rpartition("@")[2] or None),
        # An automatic message (RFC 3834): no vacation replies to it.
        "Auto-Submitted": "auto-generated",
        "Content-Language": "zh-Hans" if language == "zh-hans" else language,
    }
    return message


# OSError covers a server that is away or slow (ConnectionError, TimeoutError) and every
# smtplib.SMTPException; the database errors are the runner's usual "try again" ones.
@task(retry_on=(OperationalError, InterfaceError, OSError))
def send_confirmation(subscriber_id, wants, series_id, tag_id, language):
    """Send the confirmation of a subscription (queued by ``subscribe``). Nothing is sent to
    an address deleted since, or one that bounced or complained meanwhile."""
    subscriber = Subscriber.objects.filter(pk=subscriber_id).first()
    if subscriber is None or subscriber.state == SubscriberState.BOUNCED:
        return "not sent"
    confirmation_message(subscriber, wants, series_id, tag_id, language).send()
    return "sent"


@task(retry_on=(OperationalError, InterfaceError))
def queue_confirmations(requests):
    """Queue :func:`send_confirmation` for each of ``requests`` (claimed already) in one task; each
    address is still sent and retried on its own."""
    with transaction.atomic():
        for arguments in requests:
            send_confirmation.enqueue(*arguments)
    return len(requests)
