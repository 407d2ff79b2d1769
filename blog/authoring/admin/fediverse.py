"""The fediverse in the admin (docs/fediverse.md): who follows each actor (counted per actor in the
filter), approving or refusing a Follow by hand (BIJI_FEDIVERSE_MANUAL_APPROVAL), blocked domains,
and the likes, boosts and replies each note got, counted per note. Nothing here is shown to
readers; a reply is plain text, escaped like any other."""

from django.conf import settings
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from blog.fediverse.blocks import remove_blocked_followers
from blog.fediverse.follow_answers import queue_answer
from blog.models import DomainBlock, Follower, FollowerState, Note, Reaction


class FediverseAdmin(admin.ModelAdmin):
    """Listed in the admin only while the fediverse is on."""

    show_facets = admin.ShowFacets.ALWAYS  # the number of rows behind each filter's choice

    def has_module_permission(self, request):
        return settings.BIJI_FEDIVERSE and super().has_module_permission(request)


@admin.register(Follower)
class FollowerAdmin(FediverseAdmin):
    list_display = ["__str__", "actor", "state", "followed_at"]
    list_filter = ["actor", "state"]
    search_fields = ["handle", "remote_actor"]
    actions = ["approve", "refuse"]
    readonly_fields = [
        *("actor", "remote_actor", "handle", "inbox", "shared_inbox", "follow_id", "state"),
        "followed_at",
    ]

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Approve the selected follow requests"))
    def approve(self, request, queryset):
        approved = 0
        with transaction.atomic():
            for follower in queryset.filter(state=FollowerState.PENDING).select_for_update():
                follower.state = FollowerState.ACCEPTED
                follower.save(update_fields=["state"])
                queue_answer("Accept", follower)
                approved += 1
        self.message_user(
            request,
            ngettext("%(count)d follower approved.", "%(count)d followers approved.", approved)
            % {"count": approved},
            messages.SUCCESS,
        )

    @admin.action(description=_("Refuse the selected followers (they are told, then removed)"))
    def refuse(self, request, queryset):
        refused = 0
        with transaction.atomic():
            for follower in queryset.select_for_update():
                queue_answer("Reject", follower)
                follower.delete()
                refused += 1
        self.message_user(
            request,
            ngettext("%(count)d follower refused.", "%(count)d followers refused.", refused)
            % {"count": refused},
            messages.SUCCESS,
        )


@admin.register(DomainBlock)
class DomainBlockAdmin(FediverseAdmin):
    list_display = ["domain", "reason", "created_at"]
    search_fields = ["domain"]
    fields = ["domain", "reason"]

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            removed = remove_blocked_followers(obj.domain)
        if removed:
            self.message_user(
                request,
                ngettext(
                    "%(count)d follower on this domain was removed.",
                    "%(count)d followers on this domain were removed.",
                    removed,
                )
                % {"count": removed},
                messages.INFO,
            )


class ReactedNoteFilter(admin.SimpleListFilter):
    """The notes that got a like, boost or reply, each with its count (the facet)."""

    title = _("note")
    parameter_name = "note"

    def lookups(self, request, model_admin):
        notes = (
            Note.objects.filter(fediverse_reactions__isnull=False)
            .annotate(reactions=Count("fediverse_reactions"))
            .order_by("-reactions", "title")
            .values_list("pk", "title")[:50]
        )
        return [(str(pk), title) for pk, title in notes]

    def queryset(self, request, queryset):
        return queryset.filter(note_id=self.value()) if self.value() else queryset


@admin.register(Reaction)
class ReactionAdmin(FediverseAdmin):
    list_display = ["note", "kind", "remote_actor", "content", "received_at"]
    list_filter = [ReactedNoteFilter, "kind"]
    list_select_related = ["note"]
    search_fields = ["content", "remote_actor", "note__title"]
    date_hierarchy = "received_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
