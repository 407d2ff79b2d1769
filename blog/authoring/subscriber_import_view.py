"""Importing a subscriber list in the admin: a CSV export of biji, Ghost, Substack or
Mailchimp (:mod:`blog.mail.subscriber_csv` tells which by its header).

Staff with the permission to add subscribers. The file is read and written in the request
(10,000 addresses take a few seconds; a file holds at most
:data:`~blog.mail.subscriber_csv.MAX_ROWS`); the page then shows what came in and each line
that did not, with its number. A file that cannot be read at all is answered with a 400 and
its reason, never an error page. Nothing is sent unless the author ticks "send confirmation
requests": then each new pending address gets one, in the background.
"""

from django import forms
from django.db import IntegrityError
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blog.mail.subscriber_csv import MAX_BYTES, UnreadableFile, read
from blog.mail.subscriber_import import import_reading
from blog.mail.subscribing import subscribe
from blog.models.subscribers import SubscriberState, Wants

FORMAT_NAMES = {
    "biji": "biji",
    "ghost": "Ghost",
    "substack": "Substack",
    "mailchimp": "Mailchimp",
    "list": gettext_lazy("a list of addresses"),
}
SHOWN_PROBLEMS = 500  # lines listed on the page; the rest are counted


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


def import_subscribers_view(model_admin, request):
    form = SubscriberImportForm(request.POST or None, request.FILES or None)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Import subscribers"),
        "opts": model_admin.model._meta,
        "form": form,
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
            interface_language=request.LANGUAGE_CODE,
        )
    except IntegrityError:  # an address of the file subscribed on the site meanwhile
        form.add_error(None, _("The list changed while the file was read: import it again."))
        return TemplateResponse(request, "admin/blog/subscriber/import.html", context, status=409)
    requested = 0
    if form.cleaned_data["send_confirmations"] and outcome.pending:
        requested = request_confirmations(outcome.pending)
    context.update(
        {
            "form": SubscriberImportForm(),
            "outcome": outcome,
            "format_name": FORMAT_NAMES[reading.format],
            "created": [
                (label, outcome.created[state])
                for state, label in SubscriberState.choices
                if outcome.created[state]
            ],
            "created_total": sum(outcome.created.values()),
            "problems": outcome.problems[:SHOWN_PROBLEMS],
            "more_problems": max(0, len(outcome.problems) - SHOWN_PROBLEMS),
            "requested": requested,
        }
    )
    return TemplateResponse(request, "admin/blog/subscriber/import.html", context)


def request_confirmations(subscribers):
    """Queue a confirmation request to each of ``subscribers`` (new pending addresses) as the
    site's form does, at most one a day to an address; how many were queued."""
    queued = 0
    for subscriber in subscribers:
        queued += subscribe(
            subscriber.email,
            subscriber.wants,
            series=subscriber.series,
            tag=subscriber.tag,
            language=subscriber.interface_language,
            source=subscriber.source,
        )
    return queued
