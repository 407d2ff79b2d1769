"""Importing a subscriber list in the admin: a CSV export of biji, Ghost, Substack or Mailchimp.
Read in the request; the page reports what was done and refused by kind of row, and each line
it could not read. Confirmation requests go out in the background, as the site's form sends
them: to new addresses when the importer may not change subscribers (the double opt-in), else
when asked.
"""

from django import forms
from django.db import IntegrityError
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from blog.mail import subscriber_import as kinds
from blog.mail.subscriber_csv import MAX_BYTES, UnreadableFile, read
from blog.mail.subscriber_import import import_reading
from blog.mail.subscribing import request_confirmations
from blog.models.subscribers import Wants

FORMAT_NAMES = {
    "biji": "biji",
    "ghost": "Ghost",
    "substack": "Substack",
    "mailchimp": "Mailchimp",
    "list": gettext_lazy("a list of addresses"),
}
SHOWN_PROBLEMS = 500  # lines listed on the page; the rest are counted

# The report's sentence for each kind of row (blog.mail.subscriber_import), in its order.
DONE = {
    kinds.ADDED_CONFIRMED: ngettext_lazy(
        "%(count)d new address added as confirmed: the file says it confirmed.",
        "%(count)d new addresses added as confirmed: the file says they confirmed.",
        "count",
    ),
    kinds.ADDED_PENDING: ngettext_lazy(
        "%(count)d new address added as pending: it receives nothing until it confirms.",
        "%(count)d new addresses added as pending: they receive nothing until they confirm.",
        "count",
    ),
    kinds.ADDED_UNSUBSCRIBED: ngettext_lazy(
        "%(count)d new address recorded as unsubscribed, as the file says: nothing is sent to it.",
        "%(count)d new addresses recorded as unsubscribed, as the file says: nothing is sent "
        "to them.",
        "count",
    ),
    kinds.ADDED_BOUNCED: ngettext_lazy(
        "%(count)d new address recorded as bounced, as the file says: nothing is sent to it.",
        "%(count)d new addresses recorded as bounced, as the file says: nothing is sent to them.",
        "count",
    ),
    kinds.CONFIRMED: ngettext_lazy(
        "%(count)d pending address here already confirmed: the file says it confirmed.",
        "%(count)d pending addresses here already confirmed: the file says they confirmed.",
        "count",
    ),
    kinds.TURNED_OFF: ngettext_lazy(
        "%(count)d address here already turned off: the file says it unsubscribed or bounced.",
        "%(count)d addresses here already turned off: the file says they unsubscribed or bounced.",
        "count",
    ),
    kinds.UNCHANGED: ngettext_lazy(
        "%(count)d address was here already and was left as it was.",
        "%(count)d addresses were here already and were left as they were.",
        "count",
    ),
}
REFUSED = {
    kinds.ADDED_UNCONFIRMED: ngettext_lazy(
        "%(count)d new address added as pending, not as confirmed: the file says it "
        "confirmed, but only a user who may change subscribers imports addresses as "
        "confirmed. It is sent a confirmation request and receives nothing until it confirms.",
        "%(count)d new addresses added as pending, not as confirmed: the file says they "
        "confirmed, but only a user who may change subscribers imports addresses as "
        "confirmed. They are sent a confirmation request and receive nothing until they "
        "confirm.",
        "count",
    ),
    kinds.NOT_ADDED_OFF: ngettext_lazy(
        "%(count)d address not added: the file says it unsubscribed or bounced, and "
        "recording that needs the permission to change subscribers.",
        "%(count)d addresses not added: the file says they unsubscribed or bounced, and "
        "recording that needs the permission to change subscribers.",
        "count",
    ),
    kinds.NOT_CONFIRMED: ngettext_lazy(
        "%(count)d pending address here already left pending: the file says it confirmed, "
        "but confirming an address needs the permission to change subscribers.",
        "%(count)d pending addresses here already left pending: the file says they "
        "confirmed, but confirming an address needs the permission to change subscribers.",
        "count",
    ),
    kinds.NOT_TURNED_OFF: ngettext_lazy(
        "%(count)d address here already left on: the file says it unsubscribed or bounced, "
        "but turning an address off needs the permission to change subscribers.",
        "%(count)d addresses here already left on: the file says they unsubscribed or "
        "bounced, but turning an address off needs the permission to change subscribers.",
        "count",
    ),
    kinds.NOT_TURNED_ON: ngettext_lazy(
        "%(count)d address unsubscribed or bounced here left so: the file says it is "
        "subscribed, but an import never turns an address back on (it must subscribe and "
        "confirm again).",
        "%(count)d addresses unsubscribed or bounced here left so: the file says they are "
        "subscribed, but an import never turns an address back on (they must subscribe and "
        "confirm again).",
        "count",
    ),
}


def sentences(counts, wording):
    """The report's sentences for ``counts`` (kind: rows), in ``wording``'s order."""
    return [wording[kind] % {"count": counts[kind]} for kind in wording if counts[kind]]


class SubscriberImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("CSV file"),
        help_text=gettext_lazy(
            "An export of biji, Ghost (Members), Substack (Subscribers) or Mailchimp "
            "(Audience: subscribed, unsubscribed or cleaned contacts), as it was downloaded."
        ),
    )
    wants = forms.ChoiceField(
        label=gettext_lazy("Language, for addresses the file gives none"),
        choices=Wants.choices,
        initial=Wants.BOTH,
    )
    send_confirmations = forms.BooleanField(
        label=gettext_lazy("Send confirmation requests to the new pending addresses"),
        required=False,
        help_text=gettext_lazy(
            "An address is confirmed only if the file says it confirmed; the others wait, "
            "and receive nothing, until they confirm."
        ),
    )

    def __init__(self, *args, may_change, **kwargs):
        super().__init__(*args, **kwargs)
        if not may_change:  # every new address of theirs is sent a request: no choice
            del self.fields["send_confirmations"]


def import_subscribers_view(model_admin, request):
    may_change = model_admin.has_change_permission(request)
    form = SubscriberImportForm(request.POST or None, request.FILES or None, may_change=may_change)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Import subscribers"),
        "opts": model_admin.model._meta,
        "form": form,
        "may_change": may_change,
    }
    if request.method != "POST":
        return TemplateResponse(request, "admin/blog/subscriber/import.html", context)
    if not form.is_valid():
        return TemplateResponse(request, "admin/blog/subscriber/import.html", context, status=400)
    upload = form.cleaned_data["file"]
    try:
        reading = read(upload.read(MAX_BYTES + 1))  # read() refuses more than MAX_BYTES
    except UnreadableFile as error:
        form.add_error("file", str(error))
        return TemplateResponse(request, "admin/blog/subscriber/import.html", context, status=400)
    try:
        outcome = import_reading(
            reading,
            source=f"import: {upload.name}"[:100],
            wants=form.cleaned_data["wants"],
            may_change=may_change,
            interface_language=request.LANGUAGE_CODE,
        )
    except IntegrityError:  # an address of the file subscribed on the site meanwhile
        form.add_error(None, _("The list changed while the file was read: import it again."))
        return TemplateResponse(request, "admin/blog/subscriber/import.html", context, status=409)
    to_confirm = outcome.to_confirm
    if form.cleaned_data.get("send_confirmations"):
        to_confirm = outcome.pending
    requested = request_confirmations(to_confirm)
    context.update(
        {
            "form": SubscriberImportForm(may_change=may_change),
            "outcome": outcome,
            "format_name": FORMAT_NAMES[reading.format],
            "done": sentences(outcome.done, DONE),
            "refused": sentences(outcome.refused, REFUSED),
            "problems": outcome.problems[:SHOWN_PROBLEMS],
            "more_problems": max(0, len(outcome.problems) - SHOWN_PROBLEMS),
            "requested": requested,
            "held_back": held_back(len(to_confirm) - requested),
        }
    )
    return TemplateResponse(request, "admin/blog/subscriber/import.html", context)


def held_back(count):
    """What the report says of the ``count`` addresses sent a request in the last day."""
    if not count:
        return ""
    return ngettext(
        "%(count)d address was sent one in the last day: not another yet.",
        "%(count)d addresses were sent one in the last day: not another yet.",
        count,
    ) % {"count": count}
