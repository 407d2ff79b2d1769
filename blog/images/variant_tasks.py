"""Variants are made on the background runner: :func:`register` records an image's size and queues
one task per transaction, which makes the variants and re-renders the pages showing it.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import logging

from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Q
from django_tasks import task

from blog.background.after_commit import once_after_commit
from blog.background.render_each import render_each
from blog.background.retrying import RETRY_ON
from blog.images.variants import UNREADABLE, make_variants, read_size
from blog.models import ImageFile, Note, Page

logger = logging.getLogger(__name__)

NAMES_PER_QUERY = 200


def register(name, width, height, using=DEFAULT_DB_ALIAS):
    """Record a newly stored image (its size as shown) and queue its variants."""
    row, created = ImageFile.objects.using(using).get_or_create(
        name=name, defaults={"width": width, "height": height}
    )
    if not created and (row.width, row.height) != (width, height):
        row.width, row.height = width, height  # another file under the name: made again
        row.save(update_fields=["width", "height"])
    variants_after_commit([name], using)
    return row


# Reading an original is handled in make_variants: an OSError here is the storage's (writing,
# deleting), which a freed disk or a fixed permission cures.
@task(retry_on=(*RETRY_ON, OSError))
def make_image_variants(names):
    """Make the variants of the images ``names``, then render again what shows them."""
    changed = []
    for image_file in ImageFile.objects.filter(name__in=names).order_by("name"):
        outcome = make_variants(image_file)
        if outcome.readable:
            changed.append(image_file.name)
        else:
            logger.warning("Image %s is missing or unreadable: served as it is.", image_file.name)
    return rerender_showing(changed)


def showing(names):
    """[(Note, ids), (Page, ids)] whose body or cover shows one of ``names``, queried in batches
    (SQLite refuses deep expression trees)."""
    found = []
    for model, shows in ((Note, _notes_showing), (Page, _pages_showing)):
        ids = set()
        for start in range(0, len(names), NAMES_PER_QUERY):
            batch = names[start : start + NAMES_PER_QUERY]
            ids |= set(model.objects.filter(shows(batch)).values_list("pk", flat=True))
        found.append((model, ids))
    return found


def rerender_showing(names):
    """Render again the notes and pages that show one of the images ``names``; returns
    how many."""
    return sum(render_each(model.objects.filter(pk__in=ids)) for model, ids in showing(names))


def _shown_in_body(names):
    # The body's HTML names each image by its URL in an <img src="…">, pictured or not.
    condition = Q()
    for name in names:
        condition |= Q(body_html__contains=f'src="{default_storage.url(name)}"')
    return condition


def _notes_showing(names):
    return _shown_in_body(names) | Q(cover__in=names)


def _pages_showing(names):
    return _shown_in_body(names)


def _queue_variants(batch):
    make_image_variants.enqueue(batch.sorted("names"))


def variants_after_commit(names, using=DEFAULT_DB_ALIAS):
    """Queue the variants of ``names`` once the current transaction commits (now, outside
    of one), one task for every image it stored (:mod:`blog.background.after_commit`)."""
    once_after_commit(
        "image variants",
        using,
        _queue_variants,
        # The image is shown as it is (with its size) until `manage.py imagevariants`.
        "Could not queue the variants of stored images.",
        names=names,
    )


# --- a note's cover ---------------------------------------------------------------------------


def remember_new_cover(sender, instance, raw, **kwargs):
    """A new cover file (the admin's upload) is written by this save: remember it."""
    if raw or "cover" not in instance.__dict__:  # deferred: not being changed
        instance._new_cover = False
        return
    cover = instance.cover
    instance._new_cover = bool(cover) and not cover._committed


def register_new_cover(sender, instance, raw, using, **kwargs):
    """Register the cover the save just wrote (its size read from the file's header)."""
    if raw or not instance.__dict__.pop("_new_cover", False):
        return
    name = instance.cover.name
    try:
        width, height = read_size(name)
    except UNREADABLE:  # checked on upload (NoteForm.clean_cover): not expected
        logger.warning("Cover %s of note %s is not readable.", name, instance.pk)
        return
    register(name, width, height, using)
