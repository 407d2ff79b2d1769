"""The content model: notes, tags, series, pages, site settings, and their querysets; and the
domain operations that change several rows at once, beside them.

* :mod:`.notes`: the note and the one published rule (``Note.objects.published()``) and
  language rule (``in_interface``);
* :mod:`.taxonomy`: bilingual tags (django-taggit) and series; :mod:`.site`: pages, the site
  settings and navigation; :mod:`.rendered`: the render step every Markdown model shares;
* :mod:`.translations` and :mod:`.series`: linking a translated pair, placing a note (and its
  translation) in a series — ``Note.save()`` writes only the note's own row;
* :mod:`.revisions`: what is versioned (django-reversion), recording and restoring;
* :mod:`.share_links`: signed links that let someone read a draft;
* :mod:`.glossary`: the terms kept consistent across notes, and which notes use them;
* :mod:`.subscribers`: email subscribers and each note sent to each of them;
* :mod:`.images`: stored images, their sizes and the variants made for smaller screens;
* :mod:`.translation_sync`: which note of a translated pair is behind the other;
* tables other packages fill: :mod:`.content` (the content version's counter and the
  versions of its parts),
  :mod:`.search_document` (the search index), :mod:`.imported` (old URLs, imported files),
  :mod:`.import_runs` (the admin's imports, run in the background), :mod:`.worker_heartbeat`
  (each background worker's last sighting); :mod:`.background_tasks`, the tasks as the admin
  lists them.

May import: :mod:`blog.rendering`, :mod:`blog.text`. Knows nothing of HTTP, caches or search
code: what follows a change is listed, and connected, in :mod:`blog.reactions`; what a
change no model signal can say announces itself in :mod:`.events`.
"""

from blog.models.background_tasks import BackgroundTask
from blog.models.content import ContentVersion, PartVersion
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
    "BackgroundTask",
    "ContentVersion",
    "Delivery",
    "DeliveryState",
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
    "SearchDocument",
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
