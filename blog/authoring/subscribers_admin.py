"""Email subscribers in the admin: who they are, where they stand, and what biji keeps of them.

Neither an address nor its state is edited by hand: only its confirmation link confirms it, and
a changed address would receive what another asked for. Exports: the list as CSV (which the
import reads back) and one address's data as JSON.
"""

import json

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Count, Max, Q
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from blog.authoring.subscriber_import_view import import_subscribers_view
from blog.mail.addresses import InvalidAddress, normalise_address
from blog.mail.subscriber_csv import export_lines
from blog.mail.subscribing import find, request_confirmations
from blog.models import Subscriber
from blog.models.subscribers import DeliveryState, SubscriberState
from blog.text.site_url import absolute_url

ON = (SubscriberState.PENDING, SubscriberState.CONFIRMED)


def csv_response(subscribers, filename):
    """``subscribers`` as a CSV download, written as it is sent, so a long list stays small."""
    rows = subscribers.select_related("series", "tag").order_by("created_at", "pk")
    response = StreamingHttpResponse(
        export_lines(rows.iterator(chunk_size=1000)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class SubscriberForm(forms.ModelForm):
    """An address added by hand: stored as the site's form stores it, once per mailbox."""

    def clean_email(self):
        try:
            address = normalise_address(self.cleaned_data["email"])
        except InvalidAddress as error:
            raise forms.ValidationError(error.message) from None
        if find(address) is not None:
            raise forms.ValidationError(_("This address is subscribed already."))
        return address


@admin.register(Subscriber)
class SubscriberAdmin(admin.ModelAdmin):
    form = SubscriberForm
    change_list_template = "admin/blog/subscriber/change_list.html"
    change_form_template = "admin/blog/subscriber/change_form.html"
    list_display = ["email", "wants", "follows", "state", "created_at", "confirmed_at"]
    list_display += ["unsubscribed_at"]
    list_filter = ["state", "wants", "interface_language"]
    search_fields = ["email"]
    list_select_related = ["series", "tag"]
    date_hierarchy = "created_at"
    autocomplete_fields = ["series", "tag"]
    actions = ["export_selected", "request_confirmation", "unsubscribe", "allow_again"]
    actions += ["delete_selected"]
    fields = [
        *("email", "wants", "series", "tag", "interface_language", "state", "state_reason"),
        *("source", "created_at", "confirmation_sent_at", "confirmed_at", "unsubscribed_at"),
        "emails_sent",
    ]
    readonly_fields = [
        *("state", "state_reason", "source", "created_at", "confirmation_sent_at"),
        *("confirmed_at", "unsubscribed_at", "emails_sent"),
    ]

    def get_readonly_fields(self, request, obj=None):
        # The address is fixed once the row exists (its links are signed with it).
        if obj is not None and obj.pk is not None:
            return ["email", *self.readonly_fields]
        return self.readonly_fields

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "interface_language":
            return forms.ChoiceField(
                label=db_field.verbose_name,
                choices=settings.LANGUAGES,
                initial=request.LANGUAGE_CODE,
                help_text=_("The language of the emails' greeting and links."),
            )
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.source = obj.source or "admin"
        super().save_model(request, obj, form, change)

    @admin.display(description=_("follows"))
    def follows(self, subscriber):
        """The one series or tag the address follows, or every note."""
        if subscriber.series_id:
            return gettext("Series: %(name)s") % {"name": subscriber.series.display_name}
        if subscriber.tag_id:
            return gettext("Tag: %(name)s") % {"name": subscriber.tag.display_name}
        return gettext("Every note")

    @admin.display(description=_("emails"))
    def emails_sent(self, subscriber):
        """How many notes went to the address, how many failed, and the last one sent."""
        if subscriber.pk is None:
            return "—"
        counts = subscriber.deliveries.aggregate(
            sent=Count("pk", filter=Q(state=DeliveryState.SENT)),
            failed=Count("pk", filter=Q(state=DeliveryState.FAILED)),
            last=Max("sent_at"),
        )
        text = ngettext("%(count)d note sent", "%(count)d notes sent", counts["sent"]) % {
            "count": counts["sent"]
        }
        if counts["failed"]:
            text += ", " + gettext("%(count)d failed") % {"count": counts["failed"]}
        if counts["last"]:
            last = timezone.localtime(counts["last"]).strftime("%Y-%m-%d %H:%M")
            text += "; " + gettext("the last on %(date)s") % {"date": last}
        return text

    # --- actions -----------------------------------------------------------------------------

    @admin.action(description=_("Export the selected subscribers as CSV"))
    def export_selected(self, request, queryset):
        return csv_response(queryset, "subscribers-selected.csv")

    @admin.action(description=_("Unsubscribe the selected addresses"), permissions=["change"])
    def unsubscribe(self, request, queryset):
        count = queryset.filter(state__in=ON).update(
            state=SubscriberState.UNSUBSCRIBED,
            unsubscribed_at=timezone.now(),
            state_reason=f"unsubscribed in the admin by {request.user.get_username()}"[:200],
        )
        self.message_user(
            request,
            ngettext("%d address unsubscribed.", "%d addresses unsubscribed.", count) % count,
            messages.SUCCESS,
        )

    @admin.action(
        description=_("Send a confirmation request to the selected pending addresses"),
        permissions=["change"],
    )
    def request_confirmation(self, request, queryset):
        """As the site's form does: at most one a day to an address."""
        pending = list(queryset.filter(state=SubscriberState.PENDING))
        queued = request_confirmations(pending)
        text = ngettext(
            "A confirmation request is on its way to %(count)d address.",
            "Confirmation requests are on their way to %(count)d addresses.",
            queued,
        ) % {"count": queued}
        if len(pending) > queued:
            text += " " + ngettext(
                "%(count)d address was sent one in the last day: not another yet.",
                "%(count)d addresses were sent one in the last day: not another yet.",
                len(pending) - queued,
            ) % {"count": len(pending) - queued}
        self.message_user(request, text, messages.SUCCESS if queued else messages.WARNING)

    @admin.action(
        description=_("Let the selected bounced addresses subscribe again"),
        permissions=["change"],
    )
    def allow_again(self, request, queryset):
        """A bounced or complaining address may ask again once its mailbox works: pending until it
        confirms, its date of leaving kept so that an older link cannot confirm it."""
        count = queryset.filter(state=SubscriberState.BOUNCED).update(
            state=SubscriberState.PENDING,
            state_reason=f"allowed again in the admin by {request.user.get_username()}"[:200],
        )
        self.message_user(
            request,
            ngettext(
                "%(count)d address may subscribe again: it receives nothing until it confirms.",
                "%(count)d addresses may subscribe again: they receive nothing until they confirm.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )

    # --- the whole list, one address --------------------------------------------------------

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("export/", view(self.export_all), name="blog_subscriber_export"),
            path("import/", view(self.import_csv), name="blog_subscriber_import"),
            path(
                "<path:object_id>/data/",
                view(self.export_one),
                name="blog_subscriber_data",
            ),
            *super().get_urls(),
        ]

    def export_all(self, request):
        """Every subscriber, in every state, as CSV."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        day = timezone.localdate().isoformat()
        return csv_response(Subscriber.objects.all(), f"subscribers-{day}.csv")

    def import_csv(self, request):
        if not self.has_add_permission(request):
            raise PermissionDenied
        return import_subscribers_view(self, request)

    def export_one(self, request, object_id):
        """What biji keeps of one address, as JSON (on the address's request)."""
        subscriber = self.get_object(request, unquote(object_id))
        if subscriber is None:
            raise Http404
        if not self.has_view_permission(request, subscriber):
            raise PermissionDenied
        response = HttpResponse(
            json.dumps(
                subscriber_data(subscriber), cls=DjangoJSONEncoder, indent=2, ensure_ascii=False
            ),
            content_type="application/json; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="subscriber-{subscriber.pk}.json"'
        return response

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk is not None:
            context["data_url"] = reverse("admin:blog_subscriber_data", args=[obj.pk])
        return super().render_change_form(request, context, add, change, form_url, obj)


def subscriber_data(subscriber):
    """Everything stored about ``subscriber``, as plain data."""
    return {
        "email": subscriber.email,
        "language": subscriber.wants,
        "series": _named(subscriber.series),
        "tag": _named(subscriber.tag),
        "state": subscriber.state,
        "state_reason": subscriber.state_reason,
        "interface_language": subscriber.interface_language,
        "source": subscriber.source,
        "created_at": subscriber.created_at,
        "confirmation_sent_at": subscriber.confirmation_sent_at,
        "confirmed_at": subscriber.confirmed_at,
        "unsubscribed_at": subscriber.unsubscribed_at,
        "deliveries": [
            {
                "note": delivery.note.title,
                "note_url": absolute_url(delivery.note.get_absolute_url()),
                "message_id": delivery.message_id,
                "state": delivery.state,
                "attempts": delivery.attempts,
                "error": delivery.error,
                "queued_at": delivery.queued_at,
                "sent_at": delivery.sent_at,
            }
            for delivery in subscriber.deliveries.select_related("note").order_by("queued_at")
        ],
    }


def _named(thing):
    if thing is None:
        return None
    return {"slug": thing.slug, "name": thing.display_name}
