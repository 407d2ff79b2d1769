"""Admin forms whose files go through the same checks as the editor's uploads."""

from django import forms
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile

from .models import Note
from .uploads import RejectedImage, clean_image


class NoteAdminForm(forms.ModelForm):
    """The note's change form: a new cover image is verified and re-encoded like an editor
    upload (blog/uploads.py): raster formats only, size, pixel and frame limits, no EXIF
    (GPS, camera, serial), no comments, orientation applied, stored under a random name with
    the extension of the detected format instead of the author's file name."""

    class Meta:
        model = Note
        fields = "__all__"  # noqa: DJ007 - NoteAdmin's fieldsets choose the fields shown

    def clean_cover(self):
        cover = self.cleaned_data.get("cover")
        if not isinstance(cover, UploadedFile):
            return cover  # unchanged (the stored file), cleared (False) or empty
        try:
            image = clean_image(cover)
        except RejectedImage as error:
            raise forms.ValidationError(str(error), code="invalid_image") from error
        return ContentFile(image.data, name=image.random_name())
