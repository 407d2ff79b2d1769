"""Email subscribers and what was sent to them.

A :class:`Delivery` is written before its message goes out and again after, with its Message-ID
fixed, so a worker restarted mid-send resends nothing already accepted.
"""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Wants(models.TextChoices):
    CHINESE = "zh-hans", _("Chinese")
    ENGLISH = "en", _("English")
    BOTH = "both", _("Both languages")


class SubscriberState(models.TextChoices):
    PENDING = "pending", pgettext_lazy("subscriber", "Pending confirmation")
    CONFIRMED = "confirmed", pgettext_lazy("subscriber", "Confirmed")
    UNSUBSCRIBED = "unsubscribed", pgettext_lazy("subscriber", "Unsubscribed")
    BOUNCED = "bounced", pgettext_lazy("subscriber", "Bounced or complained")


class Subscriber(models.Model):
    # Stored as given but for the domain, lower-cased (the local part may be case-sensitive).
    email = models.EmailField(_("email address"), max_length=254, unique=True)
    wants = models.CharField(_("language"), max_length=8, choices=Wants.choices, default=Wants.BOTH)
    series = models.ForeignKey(
        "blog.Series",
        verbose_name=_("only the series"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="subscribers",
    )
    tag = models.ForeignKey(
        "blog.Tag",
        verbose_name=_("only the tag"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="subscribers",
    )
    state = models.CharField(
        _("state"),
        max_length=12,
        choices=SubscriberState.choices,
        default=SubscriberState.PENDING,
        db_index=True,
    )
    # The interface language the address subscribed in: the language of its confirmation.
    interface_language = models.CharField(_("interface language"), max_length=8, default="en")
    # Where the row came from: the site's form, an import (which file), the admin.
    source = models.CharField(_("source"), max_length=100, blank=True)
    # Not auto_now_add: an import keeps the date the address subscribed elsewhere.
    created_at = models.DateTimeField(_("subscribed"), default=timezone.now)
    confirmation_sent_at = models.DateTimeField(_("confirmation sent"), null=True, blank=True)
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)
    unsubscribed_at = models.DateTimeField(_("unsubscribed"), null=True, blank=True)
    # Why the state changed when the address did not ask (a bounce, a complaint, an import).
    state_reason = models.CharField(_("reason"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("subscriber")
        verbose_name_plural = _("subscribers")
        ordering = ["-created_at"]

    def __str__(self):
        return self.email


class DeliveryState(models.TextChoices):
    QUEUED = "queued", pgettext_lazy("delivery", "Queued")
    SENDING = "sending", pgettext_lazy("delivery", "Sending")
    SENT = "sent", pgettext_lazy("delivery", "Sent")
    FAILED = "failed", pgettext_lazy("delivery", "Failed")


class Delivery(models.Model):
    note = models.ForeignKey(
        "blog.Note", verbose_name=_("note"), on_delete=models.CASCADE, related_name="deliveries"
    )
    subscriber = models.ForeignKey(
        Subscriber,
        verbose_name=_("subscriber"),
        on_delete=models.CASCADE,
        related_name="deliveries",
    )
    # Fixed when the row is written: a message sent again after a crash carries the same one.
    message_id = models.CharField(_("Message-ID"), max_length=255, unique=True)
    state = models.CharField(
        _("state"),
        max_length=8,
        choices=DeliveryState.choices,
        default=DeliveryState.QUEUED,
        db_index=True,
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.TextField(_("last error"), blank=True)
    queued_at = models.DateTimeField(_("queued"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        constraints = [
            models.UniqueConstraint(fields=["note", "subscriber"], name="blog_delivery_once")
        ]

    def __str__(self):
        return f"{self.note_id} → {self.subscriber_id}"
