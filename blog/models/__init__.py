from ..porting.models import ImportedMedia, LegacyPath
from ..search.models import SearchDocument
from .content import ContentVersion
from .notes import Language, Note, NoteQuerySet, Status
from .site import NavigationLink, Page, SiteSettings
from .taxonomy import Series, Tag, TaggedNote

__all__ = [
    "ContentVersion",
    "ImportedMedia",
    "Language",
    "LegacyPath",
    "NavigationLink",
    "Note",
    "NoteQuerySet",
    "Page",
    "SearchDocument",
    "Series",
    "SiteSettings",
    "Status",
    "Tag",
    "TaggedNote",
]
