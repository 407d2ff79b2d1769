"""The fediverse's URLs (:mod:`.views.fediverse`), one address each, outside i18n_patterns; their
paths are the ids :mod:`blog.fediverse.ids` makes."""

from django.urls import path, re_path

from blog.public.views import fediverse

app_name = "fediverse"

urlpatterns = [
    path(".well-known/webfinger", fediverse.webfinger, name="webfinger"),
    path(".well-known/nodeinfo", fediverse.nodeinfo_links, name="nodeinfo-links"),
    path("nodeinfo/<str:version>", fediverse.nodeinfo, name="nodeinfo"),
    path("ap/inbox", fediverse.shared_inbox, name="shared-inbox"),
    path("ap/actors/<str:name>", fediverse.actor, name="actor"),
    path("ap/actors/<str:name>/inbox", fediverse.actor_inbox, name="inbox"),
    path("ap/actors/<str:name>/outbox", fediverse.outbox, name="outbox"),
    path("ap/actors/<str:name>/followers", fediverse.followers, name="followers"),
    # At most 18 digits: a bigint (a longer number would be a database error, not a 404).
    re_path(r"^ap/notes/(?P<pk>[0-9]{1,18})$", fediverse.note, name="note"),
]
