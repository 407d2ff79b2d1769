"""The media library: images uploaded through the editor, where each is used, and deletion of
the ones no note or page uses. An upload is used when a note's or page's Markdown mentions its
URL or storage name; covers belong to their note and are not listed.
"""

import logging
from dataclasses import dataclass, field

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from blog.images.variants import forget
from blog.models import Note, Page

logger = logging.getLogger(__name__)

UPLOADS = "uploads"


@dataclass
class Upload:
    name: str
    url: str
    size: int
    modified: object
    used_by: list = field(default_factory=list)  # (label, admin URL) pairs

    @property
    def unused(self):
        return not self.used_by


def _walk(directory):
    try:
        folders, files = default_storage.listdir(directory)
    except FileNotFoundError:
        return
    for name in sorted(files):
        yield f"{directory}/{name}"
    for folder in sorted(folders):
        yield from _walk(f"{directory}/{folder}")


def _files(directory):
    """(name, size, modified) of every file under ``directory``: in one listing on an object
    store (:meth:`blog.images.object_storage.ObjectStorage.files_under`), a stat a file on disk."""
    listing = getattr(default_storage, "files_under", None)
    if listing is not None:
        yield from listing(directory)
        return
    for name in _walk(directory):
        yield name, default_storage.size(name), default_storage.get_modified_time(name)


def _documents():
    """(label, admin URL, Markdown) of every note and page: one query each."""
    for pk, title, body in Note.objects.values_list("pk", "title", "body"):
        yield title, reverse("admin:blog_note_change", args=[pk]), body
    for pk, title, body in Page.objects.values_list("pk", "title", "body"):
        yield title, reverse("admin:blog_page_change", args=[pk]), body


def uploads():
    """Every upload, newest first, with the notes and pages that use it."""
    found = [
        Upload(name=name, url=default_storage.url(name), size=size, modified=modified)
        for name, size, modified in _files(UPLOADS)
    ]
    documents = list(_documents())
    for upload in found:
        upload.used_by = [
            (label, url)
            for label, url, body in documents
            if upload.url in body or upload.name in body
        ]
    found.sort(key=lambda upload: upload.modified, reverse=True)
    return found


def delete_unused(names):
    """Delete the named uploads that nothing uses; return (deleted, kept-because-used)."""
    by_name = {upload.name: upload for upload in uploads()}
    deleted, kept = [], []
    for name in names:
        upload = by_name.get(name)
        if upload is None:
            continue  # not an upload (or gone already): never a path outside uploads/
        if upload.unused:
            default_storage.delete(upload.name)
            forget(upload.name)  # its variants and size go with it
            deleted.append(name)
        else:
            kept.append(name)
    return deleted, kept


def media_library_view(model_admin, request):
    """The admin page: GET lists, POST deletes the selected unused uploads. A media store that
    does not answer (an ``OSError``: blog.images.store_errors) is said, never a server error."""
    if not model_admin.has_change_permission(request):
        raise PermissionDenied
    if request.method == "POST":
        try:
            deleted, kept = delete_unused(request.POST.getlist("delete"))
        except OSError as error:
            _store_unreachable(model_admin, request, error)
            return HttpResponseRedirect(request.path)
        if deleted:
            model_admin.message_user(
                request,
                _("Deleted %(count)d unused image(s).") % {"count": len(deleted)},
                messages.SUCCESS,
            )
        if kept:
            model_admin.message_user(
                request,
                _("Kept %(count)d image(s) that a note or page uses.") % {"count": len(kept)},
                messages.WARNING,
            )
        return HttpResponseRedirect(request.path)
    try:
        items = uploads()
    except OSError as error:
        _store_unreachable(model_admin, request, error)
        items = []
    only_unused = request.GET.get("unused") == "1"
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Media library"),
        "subtitle": None,
        "opts": model_admin.opts,
        "uploads": [u for u in items if u.unused] if only_unused else items,
        "only_unused": only_unused,
        "unused_count": sum(1 for u in items if u.unused),
        "total_count": len(items),
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/blog/media_library.html", context)


def _store_unreachable(model_admin, request, error):
    logger.error("The media library could not read the media storage: %s", error)
    message = _("The media store could not be reached: try again in a moment.")
    model_admin.message_user(request, message, messages.ERROR)
