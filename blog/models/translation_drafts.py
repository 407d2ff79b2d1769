"""Starting a translation: a draft in the other language, linked to the note it translates.

The draft holds what there is to translate, copied from the original (title, summary, body,
cover description, source attribution), and what the two versions share: tags, the series
and position ("part 2" in both languages) and the cover image, referenced rather than
copied (the same file, as the images in the body are the same URLs). Its slug is the
original's with the language after it (``cuda-warp-scheduling-en``, as in the demo), which
the author may still change before publishing.
"""

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
    """Create and return the draft translating ``original`` (a saved note).

    Raises :class:`TranslationExists` when either note of a pair already links the two. When
    the series position is held in the other language by another note, the draft stays out
    of the series (``draft.series_id`` is None) for the author to place.
    """
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
