"""Revisions of notes, pages and glossary terms with django-reversion, which records only inside
``create_revision()``, so biji decides what a revision is. Restoring calls ``save()``, not a raw
revert, so the Markdown renders again and ``updated_at`` moves."""

import copy
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import reversion
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from reversion.models import Version

from blog.models.glossary import Term
from blog.models.notes import Note
from blog.models.site import Page
from blog.models.taxonomy import Tag, set_tags
from blog.rendering import RenderRefused

# What a restore puts back: the author's writing. Status, dates, slug (URLs stay stable),
# series and translation links stay as they are now.
RESTORED_FIELDS = {
    Note: (
        "title",
        "summary",
        "body",
        "source_title",
        "source_author",
        "source_url",
        "source_date",
        "translator",
        "coauthors",
        "cover_alt",
        # The text as it was, in line with what its translation said then.
        "synced_hashes",
    ),
    Page: ("title", "body"),
    # The term's slug stays (its anchor is linked from notes), as do the notes explaining it.
    Term: (
        *("chinese", "english", "chinese_variants", "english_variants", "keep_in_english"),
        *("definition_zh", "definition_en"),
    ),
}


def version_of(obj) -> str:
    """The edit version of ``obj``: its ``updated_at`` in microseconds, "" before saving. An
    author's save moves it, a re-render does not; edit conflicts compare it."""
    updated = getattr(obj, "updated_at", None)
    if obj.pk is None or updated is None:
        return ""
    return str(int(updated.timestamp() * 1_000_000))


def register_models():
    """Register the versioned models (idempotent; called when the admin loads)."""
    if not reversion.is_registered(Tag):
        reversion.register(Tag, fields=["name", "name_zh", "slug"])
    if not reversion.is_registered(Note):
        reversion.register(
            # term_warnings: a count derived from the pair and the glossary, not the author's.
            Note,
            exclude=(
                *Note.derived_fields,
                *Note.text_state_fields,
                "term_warnings",
                "card",
                "announced_at",
            ),
            follow=("tags",),
        )
    if not reversion.is_registered(Page):
        reversion.register(Page, exclude=Page.derived_fields)
    if not reversion.is_registered(Term):
        reversion.register(Term, exclude=Term.derived_fields)


@contextmanager
def recording(user=None, comment="", manual=False):
    """A revision for every versioned object saved inside the block (nested: the outer one). Tags
    set after ``save()`` need ``manual=True`` and ``reversion.add_to_revision(note)`` once set."""
    with reversion.create_revision(manage_manually=manual):
        if user is not None and getattr(user, "is_authenticated", False):
            reversion.set_user(user)
        if comment:
            reversion.set_comment(comment)
        yield


def versions_of(obj):
    return (
        Version.objects.get_for_object(obj)
        .select_related("revision__user")
        .order_by("-revision__date_created", "-pk")
    )


def latest_version(obj):
    return versions_of(obj).first()


def versions_since(obj, edit_version, limit=10):
    """The versions of ``obj`` saved after its edit version ``edit_version``, newest first. Compared
    by stored ``updated_at``, not the revision's date, which falls after its own save."""
    if not str(edit_version).isdigit():
        return []
    opened = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(edit_version))
    newer = []
    for version in versions_of(obj).filter(revision__date_created__gt=opened)[:limit]:
        updated = version.field_dict.get("updated_at")
        if updated is None or updated > opened:
            newer.append(version)
    return newer


def local_date(moment):
    """A revision's date as the history shows it: local time, the language's format."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def tag_names(version):
    """The tags a note had in ``version``, by display name, sorted."""
    names = []
    for tag_version in version.revision.version_set.filter(
        content_type__app_label="blog", content_type__model="tag"
    ):
        data = tag_version.field_dict
        names.append(data.get("name") or data.get("name_zh") or "")
    return sorted(filter(None, names))


def render_version_ahead(obj, version):
    """Render what restoring ``version`` on ``obj`` renders, before :func:`restore`'s transaction.
    Returns why the renderer refuses it, or None."""
    ahead = copy.copy(obj)
    stored = version.field_dict
    for field in RESTORED_FIELDS[type(obj)]:
        if field in stored:
            setattr(ahead, field, stored[field])
    try:
        ahead.render_ahead()
    except RenderRefused as refusal:
        return str(refusal)
    return None


def restore(obj, version, user):
    """Put the author's fields of ``version`` back on ``obj`` and save: a new revision, the
    Markdown rendered again, ``updated_at`` moved."""
    stored = version.field_dict
    for field in RESTORED_FIELDS[type(obj)]:
        if field in stored:
            setattr(obj, field, stored[field])
    # In local time, as the history lists the versions (the comment is kept as written).
    comment = _("Restored the version of %(date)s") % {
        "date": local_date(version.revision.date_created)
    }
    with transaction.atomic(), recording(user, comment, manual=True):
        obj.save()
        if isinstance(obj, Note):
            pks = [
                int(v.object_id)
                for v in version.revision.version_set.filter(
                    content_type__app_label="blog", content_type__model="tag"
                )
            ]
            existing = list(Tag.objects.filter(pk__in=pks))
            missing = set(tag_names(version)) - {str(tag) for tag in existing}
            set_tags(obj, existing + Tag.objects.resolve(sorted(missing)))
        reversion.add_to_revision(obj)  # with its restored tags
    return obj
