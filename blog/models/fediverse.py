"""The site on the fediverse (issue 39, docs/fediverse.md): its actors' keys, who follows them, the
domains refused, what remote readers did with a note, and the activity ids already taken.

The private keys are stored as they are, like everything else that lets one act as the site (the
author's password hash, the notes themselves): whoever reads the database or a backup can already
publish as the site. Encrypting them with a key derived from SECRET_KEY would tie them to it: a
rotated key or a backup restored under another would make new keys, and peers that cache a key
for good (bovine) would refuse every delivery after.
"""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

URL_LENGTH = 500  # an actor's, inbox's or activity's id; longer ones are refused


class ActorKey(models.Model):
    """One actor's RSA key pair, made the first time the actor signs or is shown."""

    actor = models.CharField(_("actor"), max_length=64, unique=True)
    private_pem = models.TextField(_("private key"))
    public_pem = models.TextField(_("public key"))
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        verbose_name = _("actor key")
        verbose_name_plural = _("actor keys")

    def __str__(self):
        return self.actor


class FollowerState(models.TextChoices):
    PENDING = "pending", pgettext_lazy("follower", "Waiting for approval")
    ACCEPTED = "accepted", pgettext_lazy("follower", "Accepted")


class Follower(models.Model):
    """A remote actor following one of the site's actors (by its name in BIJI_FEDIVERSE_ACTORS)."""

    actor = models.CharField(_("followed actor"), max_length=64, db_index=True)
    remote_actor = models.URLField(_("follower"), max_length=URL_LENGTH)
    # @name@host, shown in the admin; the id is what counts.
    handle = models.CharField(_("handle"), max_length=200, blank=True)
    inbox = models.URLField(_("inbox"), max_length=URL_LENGTH)
    shared_inbox = models.URLField(_("shared inbox"), max_length=URL_LENGTH, blank=True)
    # The Follow's own id: an Undo may name it instead of embedding it (bovine does).
    follow_id = models.URLField(_("Follow activity"), max_length=URL_LENGTH)
    state = models.CharField(
        _("state"), max_length=10, choices=FollowerState.choices, default=FollowerState.ACCEPTED
    )
    followed_at = models.DateTimeField(_("followed"), default=timezone.now)

    class Meta:
        verbose_name = _("follower")
        verbose_name_plural = _("followers")
        ordering = ["actor", "-followed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["actor", "remote_actor"], name="follower_once_per_actor"
            )
        ]
        indexes = [models.Index(fields=["follow_id"], name="follower_follow_id_idx")]

    def __str__(self):
        return f"{self.handle or self.remote_actor} → {self.actor}"

    @property
    def delivery_inbox(self):
        """Where to deliver: the shared inbox when the follower's server has one."""
        return self.shared_inbox or self.inbox


class DomainBlock(models.Model):
    """A remote host (with its port, if any) whose requests are refused and whose followers go."""

    domain = models.CharField(
        _("domain"),
        max_length=255,
        unique=True,
        help_text=_("A host name such as mastodon.example; its subdomains are blocked too."),
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("blocked"), default=timezone.now)

    class Meta:
        verbose_name = _("blocked domain")
        verbose_name_plural = _("blocked domains")
        ordering = ["domain"]

    def __str__(self):
        return self.domain

    def save(self, *args, **kwargs):
        self.domain = self.domain.strip().strip(".").lower()
        super().save(*args, **kwargs)


class ReactionKind(models.TextChoices):
    LIKE = "like", pgettext_lazy("fediverse reaction", "Like")
    ANNOUNCE = "announce", pgettext_lazy("fediverse reaction", "Boost")
    REPLY = "reply", pgettext_lazy("fediverse reaction", "Reply")


class Reaction(models.Model):
    """A like, boost or reply from the fediverse to a note: for the author, never shown publicly.
    ``content`` is plain text (a reply's markup is stripped before it is stored)."""

    note = models.ForeignKey(
        "blog.Note",
        verbose_name=_("note"),
        on_delete=models.CASCADE,
        related_name="fediverse_reactions",
    )
    kind = models.CharField(_("kind"), max_length=10, choices=ReactionKind.choices)
    remote_actor = models.URLField(_("from"), max_length=URL_LENGTH)
    # The Like's or Announce's id, or the reply's own id: a second delivery adds nothing.
    object_id = models.URLField(_("id"), max_length=URL_LENGTH)
    url = models.URLField(_("link"), max_length=URL_LENGTH, blank=True)
    content = models.TextField(_("text"), blank=True)
    received_at = models.DateTimeField(_("received"), default=timezone.now)

    class Meta:
        verbose_name = _("fediverse reaction")
        verbose_name_plural = _("fediverse reactions")
        ordering = ["-received_at"]
        constraints = [models.UniqueConstraint(fields=["kind", "object_id"], name="reaction_once")]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.remote_actor}"


class SeenActivity(models.Model):
    """An activity id taken in the last day (by its SHA-256): a replayed one is refused. Older
    rows are pruned as new ones come; the signature's Date refuses anything older anyway."""

    digest = models.CharField(max_length=64, primary_key=True)
    seen_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("seen activity")
        verbose_name_plural = _("seen activities")

    def __str__(self):
        return self.digest


class FederatedNote(models.Model):
    """A note the fediverse has: one row per actor whose followers were sent its Create
    (blog.fediverse.delivery), with what they were sent, so an edit that changes it is an Update
    and taking it down a Delete, to those followers alone."""

    # Not a foreign key: the row outlives the note's deletion, for the Delete it then sends.
    note_id = models.BigIntegerField(db_index=True)
    actor = models.CharField(max_length=64)  # the actor's name, as Follower stores it
    fingerprint = models.CharField(max_length=64)  # sha-256 of what followers were last sent
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["note_id", "actor"], name="blog_federatednote_unique")
        ]

    def __str__(self):
        return f"{self.note_id} → {self.actor}"
