"""Subscribing by email, confirming, unsubscribing. The form sits on cached pages, so it is exempt
from CSRF by design: double opt-in, a honeypot and throttles guard it instead, and every address
gets the same answer."""

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.decorators import method_decorator
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views import generic
from django.views.decorators.csrf import csrf_exempt

from blog.caching import parts
from blog.mail.addresses import InvalidAddress, normalise_address
from blog.mail.subscribing import (
    TURNED_OFF,
    OutdatedLink,
    address_key,
    confirm,
    outdated,
    subscribe,
    unsubscribe,
)
from blog.mail.tokens import read_confirm_token, read_unsubscribe_token
from blog.models import Series, SubscriberState, Tag, Wants
from blog.public import throttle
from blog.public.views.base import CachePolicyMixin
from blog.public.views.taxonomy import listed_series, listed_tags
from blog.text.client_address import client_network

HONEYPOT = "homepage"
ONLY_KINDS = {"series": Series, "tag": Tag}


class SubscribeForm(forms.Form):
    # Not an EmailField: blog.mail.subscribing decides what an address is, CR/LF included.
    email = forms.CharField(max_length=320, strip=False)
    wants = forms.ChoiceField(choices=Wants.choices)
    # "series:<slug>" or "tag:<slug>": only that series' or tag's notes.
    only = forms.CharField(required=False, max_length=300)

    def clean_email(self):
        try:
            return normalise_address(self.cleaned_data["email"])
        except InvalidAddress as error:
            raise ValidationError(error.message, code="invalid") from None

    def clean_only(self):
        value = self.cleaned_data["only"]
        if not value:
            return None
        kind, _colon, slug = value.partition(":")
        model = ONLY_KINDS.get(kind)
        found = model.objects.filter(slug=slug).first() if model else None
        if found is None:
            raise ValidationError(
                gettext_lazy("That series or tag does not exist any more."), code="unknown"
            )
        return found


def only_value(item):
    """The form's value for "only ``item``'s notes" (a Series or a Tag)."""
    return f"{'series' if isinstance(item, Series) else 'tag'}:{item.slug}"


def personal_page(request, template, context, status=200):
    """A page for one visitor (an answer to a POST, a page an email's link opens): kept by no
    cache, in no search engine's index."""
    response = render(request, template, context, status=status)
    add_never_cache_headers(response)
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response


def throttled(request, window):
    """The 429 page, with when to come back (``window``: the throttle's, in seconds)."""
    response = personal_page(
        request,
        "blog/subscribe_problem.html",
        {
            "title": _("Too many requests"),
            "message": _(
                "This form was sent too many times. Please wait a while and try again; "
                "if you asked for a confirmation already, it is in your inbox."
            ),
        },
        status=429,
    )
    response["Retry-After"] = str(window)
    return response


def invalid_link(request):
    return personal_page(
        request,
        "blog/subscribe_problem.html",
        {
            "title": _("This link does not work"),
            "message": _(
                "The link is incomplete, has expired, or belongs to an address that was "
                "removed. Confirmation links work for a few days only."
            ),
            "subscribe_again": True,
        },
        status=400,
    )


def outdated_link(request, reason, subscriber):
    """A confirmation link overtaken by an unsubscription or a newer link: it confirms
    nothing, says why, and offers a new one (none to an address whose mail bounced)."""
    bounced = subscriber.state == SubscriberState.BOUNCED
    if reason == TURNED_OFF and bounced:
        message = _(
            "Mail to this address bounced or was reported as spam after this link was sent, "
            "so nothing more is sent to it and the link no longer subscribes it."
        )
    elif reason == TURNED_OFF:
        message = _(
            "You unsubscribed after this link was sent, so it no longer subscribes you. "
            "To receive new notes again, subscribe again: a new link will be sent to you."
        )
    else:
        message = _(
            "A newer confirmation link was sent to this address after this one: only the "
            "newest works. Use it, or subscribe again."
        )
    return personal_page(
        request,
        "blog/subscribe_problem.html",
        {
            "title": _("This link no longer works"),
            "message": message,
            "subscribe_again": not bounced,
        },
        status=400,
    )


@method_decorator(csrf_exempt, name="dispatch")  # the form sits on cached pages: see above
class SubscribeView(CachePolicyMixin, generic.TemplateView):
    """GET: the subscribe page (public, cached). POST: the form's answer (module docstring)."""

    template_name = "blog/subscribe.html"

    def get_context_data(self, form=None, **kwargs):
        # The series and tags to choose from, as their indexes list them.
        parts.depend_on(parts.SERIES_INDEX, parts.TAGS)
        series_choices = [(only_value(series), series) for series in listed_series()]
        tag_choices = [(only_value(tag), tag) for tag in listed_tags()]
        if form is not None:
            chosen = form.data.get("only", "")
        else:  # /subscribe/?series=<slug> or ?tag=<slug>: that one chosen
            asked = [
                f"{kind}:{self.request.GET[kind]}"
                for kind in ONLY_KINDS
                if kind in self.request.GET
            ]
            values = {value for value, _item in series_choices + tag_choices}
            chosen = next((value for value in asked if value in values), "")
        return super().get_context_data(
            series_choices=series_choices,
            tag_choices=tag_choices,
            chosen=chosen,
            form=form,
            noindex=form is not None,
            title=_("Subscribe by email"),
            **kwargs,
        )

    def post(self, request, *args, **kwargs):
        self.private = True
        if not throttle.allow(
            "subscribe-ip",
            client_network(request),
            settings.BIJI_SUBSCRIBE_IP_LIMIT,
            settings.BIJI_SUBSCRIBE_IP_WINDOW,
        ):
            return throttled(request, settings.BIJI_SUBSCRIBE_IP_WINDOW)
        if request.POST.get(HONEYPOT):
            return self.sent(request)  # a robot: the usual answer, nothing done
        form = SubscribeForm(request.POST)
        if not form.is_valid():
            context = self.get_context_data(form=form)
            return personal_page(request, self.template_name, context, status=400)
        address = form.cleaned_data["email"]
        if not throttle.allow(
            "subscribe-address",
            address_key(address),
            settings.BIJI_SUBSCRIBE_ADDRESS_LIMIT,
            settings.BIJI_SUBSCRIBE_ADDRESS_WINDOW,
        ):
            return throttled(request, settings.BIJI_SUBSCRIBE_ADDRESS_WINDOW)
        only = form.cleaned_data["only"]
        subscribe(
            address,
            form.cleaned_data["wants"],
            series=only if isinstance(only, Series) else None,
            tag=only if isinstance(only, Tag) else None,
            language=get_language(),
        )
        return self.sent(request)

    @staticmethod
    def sent(request):
        """The one answer to every accepted form, whatever the address's state."""
        return personal_page(request, "blog/subscribe_sent.html", {"noindex": True})


def choice_context(choice):
    """What a confirmation link asks for, as the confirmation page shows it."""
    series = Series.objects.filter(pk=choice.series_id).first() if choice.series_id else None
    tag = Tag.objects.filter(pk=choice.tag_id).first() if choice.tag_id else None
    return {
        "address": choice.subscriber.email,
        "wants": Wants(choice.wants).label,
        "series": series,
        "tag": tag,
        "noindex": True,
    }


@method_decorator(csrf_exempt, name="dispatch")  # the signed token is the proof, not a cookie
class ConfirmView(generic.View):
    """GET shows what the link confirms, with a button; the button's POST confirms."""

    template_name = "blog/subscribe_confirm.html"

    def get(self, request, token):
        choice = read_confirm_token(token, settings.BIJI_CONFIRM_MAX_AGE)
        if choice is None:
            return invalid_link(request)
        reason = outdated(choice)
        if reason is not None:
            return outdated_link(request, reason, choice.subscriber)
        return personal_page(request, self.template_name, choice_context(choice))

    def post(self, request, token):
        choice = read_confirm_token(token, settings.BIJI_CONFIRM_MAX_AGE)
        try:
            subscriber = confirm(choice, get_language()) if choice else None
        except OutdatedLink as overtaken:
            return outdated_link(request, overtaken.reason, overtaken.subscriber)
        if subscriber is None:
            return invalid_link(request)
        return personal_page(
            request, self.template_name, {**choice_context(choice), "confirmed": True}
        )


@method_decorator(csrf_exempt, name="dispatch")  # RFC 8058: mail clients POST with no cookie
class UnsubscribeView(generic.View):
    """GET: a page with a button; POST (the button, or a mail client's one-click
    ``List-Unsubscribe=One-Click``): unsubscribed, whatever the body says."""

    template_name = "blog/subscribe_unsubscribe.html"

    def get(self, request, token):
        subscriber = read_unsubscribe_token(token)
        if subscriber is None:
            return invalid_link(request)
        done = subscriber.state == SubscriberState.UNSUBSCRIBED
        return self.page(request, subscriber, done)

    def post(self, request, token):
        subscriber = read_unsubscribe_token(token)
        if subscriber is None:
            return invalid_link(request)
        return self.page(request, unsubscribe(subscriber), True)

    def page(self, request, subscriber, done):
        context = {"address": subscriber.email, "unsubscribed": done, "noindex": True}
        return personal_page(request, self.template_name, context)
