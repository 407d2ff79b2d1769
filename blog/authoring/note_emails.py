"""A note's email to subscribers, in the note admin: delivery counts in the list (one subquery
each, no query per row), the note's panel, a test email sent at once to the author, and sending
by hand to the subscribers who were not sent it (a note published with "don't email", say).
"""

import logging
import smtplib

from anymail.exceptions import AnymailError
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from blog.mail.announce import send_by_hand
from blog.mail.note_email import build_note_email
from blog.mail.recipients import recipients
from blog.models.subscribers import Delivery, DeliveryState

logger = logging.getLogger(__name__)

STATES = {
    "emails_queued": DeliveryState.QUEUED,
    "emails_sending": DeliveryState.SENDING,
    "emails_sent": DeliveryState.SENT,
    "emails_failed": DeliveryState.FAILED,
}
SHOWN_ERRORS = 3


def _count(state):
    deliveries = (
        Delivery.objects.filter(note=OuterRef("pk"), state=state)
        .order_by()
        .values("note")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return Coalesce(Subquery(deliveries, output_field=IntegerField()), Value(0))


def with_delivery_counts(queryset):
    """``queryset`` with ``emails_queued``, ``emails_sending``, ``emails_sent`` and
    ``emails_failed`` on each note."""
    return queryset.annotate(**{name: _count(state) for name, state in STATES.items()})


def _counts_text(queued, sending, sent, failed):
    parts = [gettext("%(count)d sent") % {"count": sent}]
    if failed:
        parts.append(gettext("%(count)d failed") % {"count": failed})
    if queued + sending:
        parts.append(gettext("%(count)d waiting") % {"count": queued + sending})
    return ", ".join(parts)


def delivery_line(note):
    """Under a note's state in the list: its emails, if it has any."""
    counts = [getattr(note, name, 0) for name in STATES]
    if not any(counts):
        return ""
    return format_html(
        '<br><span class="email-stats{}">✉ {}</span>',
        " failed" if note.emails_failed else "",
        _counts_text(*counts),
    )


class EmailFilter(admin.SimpleListFilter):
    """Notes by their email to subscribers (needs :func:`with_delivery_counts`)."""

    title = _("email to subscribers")
    parameter_name = "emails"

    def lookups(self, request, model_admin):
        return [
            ("failed", _("Some failed")),
            ("waiting", _("Being sent")),
            ("sent", _("Sent")),
            ("none", _("Not emailed")),
        ]

    def queryset(self, request, queryset):
        waiting = Q(emails_queued__gt=0) | Q(emails_sending__gt=0)
        if self.value() == "failed":
            return queryset.filter(emails_failed__gt=0)
        if self.value() == "waiting":
            return queryset.filter(waiting)
        if self.value() == "sent":
            return queryset.filter(emails_sent__gt=0).exclude(waiting).exclude(emails_failed__gt=0)
        if self.value() == "none":
            return queryset.filter(
                emails_queued=0, emails_sending=0, emails_sent=0, emails_failed=0
            )
        return queryset


def delivery_panel(note):
    """The note page's panel: its emails so far and the buttons."""
    if note.pk is None:
        return gettext("Saved notes can be emailed.")
    counts = note.deliveries.aggregate(
        **{name: Count("pk", filter=Q(state=state)) for name, state in STATES.items()}
    )
    if note.announced_at is not None and not any(counts.values()):
        status = gettext(
            "No subscriber was emailed when it was published: it was published before "
            "subscribers existed, with the switch above off, or nobody subscribed wants it."
        )
    elif note.announced_at is not None:
        when = timezone.localtime(note.announced_at).strftime("%Y-%m-%d %H:%M")
        status = gettext("Announced on %(date)s: %(counts)s.") % {
            "date": when,
            "counts": _counts_text(*counts.values()),
        }
    elif any(counts.values()):
        status = gettext("Sent by hand: %(counts)s.") % {"counts": _counts_text(*counts.values())}
    else:
        status = gettext(
            "Not emailed yet: subscribers get it when it is first published, unless the switch "
            "above is off."
        )
    errors = list(
        note.deliveries.filter(state=DeliveryState.FAILED)
        .exclude(error="")
        .values_list("subscriber__email", "error")
        .order_by("-pk")[:SHOWN_ERRORS]
    )
    buttons = [
        (
            reverse("admin:blog_note_test_email", args=[note.pk]),
            gettext("Send a test email to me"),
        )
    ]
    if note.is_published():
        buttons.append(
            (
                reverse("admin:blog_note_send_email", args=[note.pk]),
                gettext("Send to subscribers now…"),
            )
        )
    return format_html(
        '<div class="email-panel"><p>{}</p>{}<p>{}</p></div>',
        status,
        format_html(
            '<ul class="email-errors">{}</ul>',
            format_html_join("", "<li>{}: {}</li>", ((e, m[:200]) for e, m in errors)),
        )
        if errors
        else "",
        format_html_join(" ", '<a class="button" href="{}">{}</a>', buttons),
    )


# --- the two pages -----------------------------------------------------------------------


def _note_or_404(model_admin, request, object_id):
    note = model_admin.get_object(request, unquote(object_id))
    if note is None:
        raise Http404
    if not model_admin.has_change_permission(request, note):
        raise PermissionDenied
    return note


def _confirm_page(model_admin, request, note, context):
    return TemplateResponse(
        request,
        "admin/blog/subscriber/note_email_confirm.html",
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.model._meta,
            "original": note,
            "change_url": reverse("admin:blog_note_change", args=[note.pk]),
            **context,
        },
    )


def test_email_view(model_admin, request, object_id):
    """GET: whom the test goes to; POST: send it now, and say so on the note's page."""
    note = _note_or_404(model_admin, request, object_id)
    address = request.user.email
    if request.method != "POST":
        return _confirm_page(
            model_admin,
            request,
            note,
            {
                "title": gettext("Send a test email to me"),
                "address": address,
                "can_send": bool(address),
                "action": gettext("Send the test email"),
            },
        )
    change_url = reverse("admin:blog_note_change", args=[note.pk])
    if not address:
        model_admin.message_user(
            request,
            gettext("Your account has no email address: add one to your user to get tests."),
            messages.ERROR,
        )
        return redirect(change_url)
    try:
        build_note_email(note, None, to=[address]).send()
    except (smtplib.SMTPException, OSError, AnymailError) as error:  # SMTP, or a provider
        logger.warning("test email of note %s to %s failed: %s", note.pk, address, error)
        model_admin.message_user(
            request,
            gettext("The test email could not be sent: %(error)s") % {"error": error},
            messages.ERROR,
        )
    else:
        model_admin.message_user(
            request,
            gettext("A test email of “%(title)s” was sent to %(address)s.")
            % {"title": note.title, "address": address},
            messages.SUCCESS,
        )
    return redirect(change_url)


def send_now_view(model_admin, request, object_id):
    """GET: how many subscribers it would reach; POST: queue the note to them."""
    note = _note_or_404(model_admin, request, object_id)
    change_url = reverse("admin:blog_note_change", args=[note.pk])
    if not note.is_published():
        model_admin.message_user(
            request, gettext("Only a published note can be sent to subscribers."), messages.ERROR
        )
        return redirect(change_url)
    if request.method != "POST":
        count = recipients(note).count()
        return _confirm_page(
            model_admin,
            request,
            note,
            {
                "title": gettext("Send to subscribers now"),
                "sending": True,
                "recipients": count,
                "can_send": count > 0,
                "action": gettext("Send it now"),
            },
        )
    queued = send_by_hand(note)
    if not queued:
        model_admin.message_user(
            request,
            gettext("Every subscriber “%(title)s” is for was sent it already.")
            % {"title": note.title},
            messages.INFO,
        )
        return redirect(change_url)
    model_admin.message_user(
        request,
        ngettext(
            "“%(title)s” is on its way to %(count)d subscriber.",
            "“%(title)s” is on its way to %(count)d subscribers.",
            queued,
        )
        % {"title": note.title, "count": queued},
        messages.SUCCESS,
    )
    return redirect(change_url)
