"""The content model, its querysets, and the domain operations that change several rows at once
(docs/architecture.md lists each module). ``Note.save()`` writes only the note's own row.

May import: :mod:`blog.rendering`, :mod:`blog.text`. What follows a change is connected in
:mod:`blog.reactions`; what no model signal can say is announced in :mod:`.events`.
"""

from blog.models.background_tasks import BackgroundTask
from blog.models.content import ContentVersion, PartVersion
from blog.models.corrections import Correction
from blog.models.fediverse import (
    ActorKey,
    DomainBlock,
    FederatedNote,
    Follower,
    FollowerState,
    Reaction,
    ReactionKind,
    SeenActivity,
)
from blog.models.glossary import Term, TermUse
from blog.models.images import ImageFile
from blog.models.import_runs import ImportRun
from blog.models.imported import ImportedMedia, LegacyPath
from blog.models.notes import Language, Note, NoteQuerySet, Status
from blog.models.search_document import SearchDocument
from blog.models.site import NavigationLink, Page, SiteSettings
from blog.models.subscribers import Delivery, DeliveryState, Subscriber, SubscriberState, Wants
from blog.models.taxonomy import Series, Tag, TaggedNote
from blog.models.worker_heartbeat import WorkerHeartbeat

__all__ = [
    "ActorKey",
    "BackgroundTask",
    "ContentVersion",
    "Correction",
    "Delivery",
    "DeliveryState",
    "DomainBlock",
    "FederatedNote",
    "Follower",
    "FollowerState",
    "ImageFile",
    "ImportRun",
    "ImportedMedia",
    "Language",
    "LegacyPath",
    "NavigationLink",
    "Note",
    "NoteQuerySet",
    "Page",
    "PartVersion",
    "Reaction",
    "ReactionKind",
    "SearchDocument",
    "SeenActivity",
    "Series",
    "SiteSettings",
    "Status",
    "Subscriber",
    "SubscriberState",
    "Tag",
    "TaggedNote",
    "Term",
    "TermUse",
    "Wants",
    "WorkerHeartbeat",
]
