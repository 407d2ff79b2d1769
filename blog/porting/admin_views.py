"""The Markdown import as an admin page, for authors who do not use a shell.

Upload a .zip of a Hugo, Hexo or Jekyll folder (or of a biji export); the page shows the same
report as ``manage.py import_markdown``. Staff with the permission to add notes only. The
archive is unpacked into a temporary folder with its paths checked (no ``../`` or absolute
names: "zip slip") and its size and file count bounded before anything is written.
"""

import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blog.porting.formats import FORMATS
from blog.porting.run import import_markdown

MAX_FILES = 5000
MAX_UNPACKED_BYTES = 500 * 1024 * 1024


class ImportForm(forms.Form):
    archive = forms.FileField(
        label=gettext_lazy("Zip archive"),
        help_text=gettext_lazy("A .zip of your site's folder (Markdown files and their images)."),
    )
    format = forms.ChoiceField(
        label=gettext_lazy("Front matter of"),
        choices=[("auto", gettext_lazy("Any: Hugo, Hexo or Jekyll"))]
        + [(name, name.capitalize()) for name in FORMATS],
        initial="auto",
    )
    dry_run = forms.BooleanField(
        label=gettext_lazy("Dry run: only show what would happen"), required=False, initial=True
    )


class UnsafeArchive(ValueError):
    pass


def unpack(archive, destination):
    """Unpack ``archive`` (a file object) into ``destination``, refusing unsafe archives."""
    try:
        bundle = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise UnsafeArchive(_("The file is not a zip archive.")) from None
    with bundle:
        members = bundle.infolist()
        if len(members) > MAX_FILES:
            raise UnsafeArchive(_("The archive has too many files."))
        if sum(member.file_size for member in members) > MAX_UNPACKED_BYTES:
            raise UnsafeArchive(_("The archive is too large once unpacked."))
        root = Path(destination).resolve()
        for member in members:
            name = PurePosixPath(member.filename)
            if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
                raise UnsafeArchive(_("The archive contains a path outside its folder."))
            if (root / name).resolve().is_relative_to(root) is False:
                raise UnsafeArchive(_("The archive contains a path outside its folder."))
        bundle.extractall(root)
    return root


def import_markdown_view(request):
    if not (request.user.is_active and request.user.is_staff):
        raise PermissionDenied
    if not request.user.has_perm("blog.add_note"):
        raise PermissionDenied
    report = None
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        with tempfile.TemporaryDirectory(prefix="biji-import-") as folder:
            try:
                root = unpack(form.cleaned_data["archive"], folder)
            except UnsafeArchive as error:
                form.add_error("archive", str(error))
            else:
                report = import_markdown(
                    [root],
                    fmt=form.cleaned_data["format"],
                    dry_run=form.cleaned_data["dry_run"],
                    user=request.user,
                )
    context = {
        **admin.site.each_context(request),
        "title": _("Import Markdown"),
        "form": form,
        "report": report,
        "report_lines": report.lines() if report else [],
        "opts": _note_opts(),
    }
    return TemplateResponse(request, "admin/blog/import_markdown.html", context)


def _note_opts():
    from blog.models import Note

    return Note._meta
