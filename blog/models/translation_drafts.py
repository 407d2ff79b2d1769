"""Starting a translation: a draft in the other language, linked to the note it translates, with its
text copied and its tags, series place and cover shared; its slug is the original's with the
language after it."""

from django.db import transaction

from blog.models.notes import Language, Note, Status
from blog.models.taxonomy import set_tags
from blog.models.translations import render_ahead_as_pair, save_note
from blog.text.slugs import unique_slug

OTHER_LANGUAGE = {Language.CHINESE: Language.ENGLISH, Language.ENGLISH: Language.CHINESE}
SLUG_SUFFIX = {Language.CHINESE: "zh", Language.ENGLISH: "en"}
COPIED_FIELDS = (
    "title",
    "summary",
    "body",
    "source_title",
    "source_author",
    "source_url",
    "source_date",
    "cover",
    "cover_alt",
)


class TranslationExists(Exception):
    """The note has a translation already (:attr:`translation`)."""

    def __init__(self, translation):
        super().__init__(translation)
        self.translation = translation


def render_translation_ahead(original):
    """What :func:`start_translation` renders (the draft, the original's blocks), rendered
    now, before its transaction."""
    draft = Note(language=OTHER_LANGUAGE[original.language], body=original.body)
    render_ahead_as_pair(original, draft)


@transaction.atomic
def start_translation(original):
    """Create and return the draft translating ``original``; raise :class:`TranslationExists` if
    linked already. If its series position is taken in the other language, it is left out of the
    series."""
    # Locked: two clicks at once make one translation, not two.
    original = Note.objects.select_for_update().get(pk=original.pk)
    existing = original.linked_translation()
    if existing is not None:
        raise TranslationExists(existing)
    language = OTHER_LANGUAGE[original.language]
    draft = Note(language=language, status=Status.DRAFT, translation=original)
    for field in COPIED_FIELDS:
        setattr(draft, field, getattr(original, field))
    slug_length = Note._meta.get_field("slug").max_length
    draft.slug = unique_slug(
        f"{original.slug[: slug_length - 10].rstrip('-')}-{SLUG_SUFFIX[language]}",
        lambda slug: Note.objects.filter(slug=slug).exists(),
        max_length=slug_length,
    )
    if original.series_id and (
        original.series_position is None
        or draft.position_holder(original.series_id, language, original.series_position) is None
    ):
        draft.series_id, draft.series_position = original.series_id, original.series_position
    # The draft follows its original; the original does not follow the draft being written.
    save_note(draft, both_ways_in_line=False)
    set_tags(draft, list(original.tags.all()))
    return draft
