from blog.models.content import ContentVersion
from blog.models.imported import ImportedMedia, LegacyPath
from blog.models.notes import Language, Note, NoteQuerySet, Status
from blog.models.search_document import SearchDocument
from blog.models.site import NavigationLink, Page, SiteSettings
from blog.models.taxonomy import Series, Tag, TaggedNote

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
