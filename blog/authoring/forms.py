"""The admin's forms for notes and pages: the edit version, friendly errors, proposed slugs and
series positions, tags by either name, and the translated pair's boxes.
"""

from django import forms
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blog.authoring.conflicts import EditVersionFormMixin
from blog.authoring.markdown_widget import MarkdownEditorWidget
from blog.authoring.series_positions import held_positions, proposed_position
from blog.authoring.tag_input import BilingualTagField, BilingualTagWidget, check_pairs, save_pairs
from blog.images.uploads import NotStored, RejectedImage, clean_image, store_cover
from blog.models import Language, Note, Page
from blog.models.corrections import CORRECTION_MAX_LENGTH
from blog.models.translation_sync import is_original_of
from blog.text.slugs import proposed_slug, unique_slug


def _form_field(field, **kwargs):
    # A source URL typed without a scheme means https (Django 6's default, adopted now).
    if isinstance(field, models.URLField):
        kwargs.setdefault("assume_scheme", "https")
    return field.formfield(**kwargs)


class TranslationSyncFields(forms.Form):
    """What this save means for the note's translated pair
    (:func:`blog.models.translation_sync.after_edit`). Without either box the other note falls
    behind once this text changes, so a typo fix does not hide a changed paragraph."""

    sync_fields = ("in_line", "no_translation_needed")

    in_line = forms.BooleanField(required=False)
    no_translation_needed = forms.BooleanField(
        label=gettext_lazy("No translation needed (a small fix)"),
        required=False,
        help_text=gettext_lazy(
            "A typo or a link fixed: the other note stays in line with this one."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        other = self.instance.counterpart if self.instance.pk is not None else None
        if other is None:
            for name in self.sync_fields:
                self.fields.pop(name, None)
            return
        if is_original_of(other, self.instance):
            label = _("This edit brings it in line with its original")
            help_text = _("Tick it when this note now says everything its original says.")
        else:
            label = _("This edit brings it in line with its translation")
            help_text = _("Tick it when this note now says everything its translation says.")
        self.fields["in_line"].label = label
        self.fields["in_line"].help_text = help_text

    def sync_choices(self):
        """The keyword arguments of ``after_edit`` that this form's boxes give."""
        data = getattr(self, "cleaned_data", {})
        return {
            "in_line": bool(data.get("in_line")),
            "needs_translation": not data.get("no_translation_needed"),
        }


class CorrectionField(forms.Form):
    """A save of a published note may be a correction readers see (:mod:`blog.models.corrections`):
    one line, kept by the admin with the save's revision. A note readers never saw has nothing
    to correct: the form says so and keeps what the author typed."""

    correction = forms.CharField(
        label=gettext_lazy("Correction"),
        max_length=CORRECTION_MAX_LENGTH,
        required=False,
        help_text=gettext_lazy(
            "Only when this save corrects a mistake readers may have read: one line in the "
            "note's language, e.g. 修正：H100 的显存带宽应为 3.35 TB/s. It is shown, dated, "
            "under the title, at the end of the note and in the feeds. Leave it empty for "
            "ordinary edits."
        ),
    )

    def clean_correction(self):
        # One line, whatever was pasted into it.
        text = " ".join(self.cleaned_data.get("correction", "").split())
        # The note as stored: this form's values are not on it yet.
        if text and (self.instance.pk is None or not self.instance.is_published()):
            raise forms.ValidationError(
                _(
                    "Only a published note can be corrected: readers have not seen this one. "
                    "Empty this field to save, or save the correction once the note is out."
                ),
                code="not_published",
            )
        return text


class NoteForm(CorrectionField, TranslationSyncFields, EditVersionFormMixin, forms.ModelForm):
    """The note's change form. A new cover is verified and re-encoded like an editor upload
    (:mod:`blog.images.uploads`), and written once the whole form is valid, so that a server that
    cannot write it is a form error on the cover, not a failed save."""

    class Meta:
        model = Note
        formfield_callback = _form_field
        fields = [
            *("title", "slug", "language", "body", "summary", "tags", "status", "published_at"),
            *("series", "series_position", "translation", "source_title", "source_author"),
            *("source_url", "source_date", "translator", "coauthors", "cover", "cover_alt"),
        ]
        widgets = {"body": MarkdownEditorWidget, "tags": BilingualTagWidget}
        field_classes = {"tags": BilingualTagField}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.translation_held_by = self._translation_held_by_other()
        if self.translation_held_by is not None:
            # The link is stored on the other note: this one shows it too.
            self.initial["translation"] = self.translation_held_by.pk
        self.released_translation = None
        self.new_cover = None  # the cleaned image of a cover uploaded with this form
        if "tags" in self.fields:
            self.fields["tags"].widget.language = self._language()
            self.fields["tags"].help_text = _(
                "Comma-separated; Chinese or English names of existing tags both work. Give a "
                "new tag both names at once as “Chinese name / English name”, e.g. “调度 / "
                "Scheduling”."
            )
        if "series_position" in self.fields:
            self._propose_position()
        if "slug" in self.fields and self.instance.pk is None:
            # editor.js fills the field as the title is typed; the author may change it.
            self.fields["slug"].widget.attrs.update(
                {"data-slug-from": "title", "data-slug-url": _slug_url()}
            )
            self.fields["slug"].help_text = _(
                "Proposed from the title (English words as they are, Chinese in pinyin; at most 50 "
                "characters). "
                "Change it now if you like: it never changes after the first save."
            )

    def _language(self):
        """The note's language as the form shows it: posted, stored, or the form's default."""
        posted = self.data.get(self.add_prefix("language")) if self.is_bound else None
        language = posted or self.instance.language or self.fields["language"].initial
        return language if language in Language.values else None

    def _translation_held_by_other(self):
        """The note whose link names this one, when this one holds none itself."""
        if self.instance.pk is None or self.instance.translation_id:
            return None
        return Note.objects.filter(translation_id=self.instance.pk).first()

    def _propose_position(self):
        field = self.fields["series_position"]
        field.help_text = _(
            "1 for the first part; unique within the series in each language. Choosing a "
            "series proposes the next free position; left empty, it is taken on save."
        )
        field.widget.attrs.update(
            {
                "data-position-url": _admin_url("admin:blog_note_position"),
                "data-note": self.instance.pk or "",
            }
        )
        # Which notes not out yet hold positions (editor.js keeps it up to date).
        series = self.data.get(self.add_prefix("series")) if self.is_bound else None
        series = series or self.instance.series_id or self.initial.get("series")
        held = (
            held_positions(series, self._language(), self.instance)
            if str(series or "").isdigit()
            else ""
        )
        field.help_text = format_html(
            '{} <span class="position-held">{}</span>', field.help_text, held
        )
        if self.is_bound or self.instance.pk is not None:
            return
        # A new note opened with a series (?series=3): its position is proposed already.
        series = self.initial.get("series")
        if self.initial.get("series_position") in (None, "") and str(series or "").isdigit():
            language = self.initial.get("language") or self.fields["language"].initial
            self.initial["series_position"] = proposed_position(int(series), language)

    def clean_published_at(self):
        """A time sent back as the form showed it keeps the stored value: the Chinese admin shows
        minutes only, and saving must not cut off the rest."""
        value = self.cleaned_data.get("published_at")
        stored = self.instance.published_at if self.instance.pk is not None else None
        if value is not None and stored is not None and self._sent_as_shown("published_at", stored):
            return stored
        return value

    def _sent_as_shown(self, name, stored):
        field = self.fields[name]
        widget = field.widget
        context = widget.get_context(self.add_prefix(name), field.prepare_value(stored), {})
        shown = [part["value"] for part in context["widget"].get("subwidgets") or []]
        if not shown:
            shown = [context["widget"]["value"]]
        sent = widget.value_from_datadict(self.data, self.files, self.add_prefix(name))
        if not isinstance(sent, list | tuple):
            sent = [sent]
        return [str(v or "").strip() for v in shown] == [str(v or "").strip() for v in sent]

    def clean_translation(self):
        chosen = self.cleaned_data.get("translation")
        other = self.translation_held_by
        if other is None:
            return chosen
        if chosen is None:
            # Emptied here: the other note's link goes (admin's save_model).
            self.released_translation = other
        elif chosen.pk == other.pk:
            return None  # unchanged: the link stays on the note that holds it
        return chosen

    def clean_tags(self):
        items = self.cleaned_data.get("tags") or []
        errors = check_pairs(items)
        if errors:
            raise forms.ValidationError(errors)
        return items

    def save(self, commit=True):
        # The whole form is valid: the tags typed with both names are created or completed
        # now, and handed to the tag field as tags.
        if "tags" in self.cleaned_data:
            self.cleaned_data["tags"] = save_pairs(self.cleaned_data["tags"])
        return super().save(commit)

    def clean_cover(self):
        cover = self.cleaned_data.get("cover")
        if not isinstance(cover, UploadedFile):
            return cover  # unchanged (the stored file), cleared (False) or empty
        try:
            image = clean_image(cover)
        except RejectedImage as error:
            raise forms.ValidationError(str(error), code="invalid_image") from error
        self.new_cover = image
        return ContentFile(image.data, name=image.random_name())

    def full_clean(self):
        super().full_clean()
        image = self.new_cover
        if image is None or not self.is_bound or self.errors:
            return
        try:
            store_cover(self.instance.cover, image)
        except NotStored as error:
            self.add_error("cover", forms.ValidationError(str(error), code="not_stored"))

    def clean_slug(self):
        slug = self.cleaned_data.get("slug", "")
        if slug:
            return slug
        if self.instance.pk is not None and self.instance.slug:
            return self.instance.slug  # an emptied slug does not move the note's URL
        return unique_slug(
            proposed_slug(self.data.get(self.add_prefix("title"), "")),
            lambda s: Note.objects.filter(slug=s).exclude(pk=self.instance.pk).exists(),
        )

    def clean(self):
        cleaned = super().clean()
        series, position = cleaned.get("series"), cleaned.get("series_position")
        language = cleaned.get("language")
        if series is not None and position is None and language and self._fills_position():
            translation = cleaned.get("translation")
            if translation is None and self.released_translation is None:
                translation = self.translation_held_by
            position = proposed_position(series.pk, language, self.instance, translation)
            cleaned["series_position"] = position
        if series is not None and position is not None and language:
            holder = self.instance.position_holder(series.pk, language, position)
            if holder is not None:
                self.add_error("series_position", self._position_taken(holder, series, language))
        return cleaned

    def _fills_position(self):
        """An empty position is proposed on save for a new note or one moved to a series;
        an imported note left in its series without one stays as it is."""
        if self.has_error("series_position"):
            return False
        return self.instance.pk is None or "series" in self.changed_data

    def _position_taken(self, holder, series, language):
        taken = set(
            Note.objects.filter(series=series, language=language)
            .exclude(pk=self.instance.pk)
            .values_list("series_position", flat=True)
        )
        free = holder.series_position + 1
        while free in taken:
            free += 1
        return forms.ValidationError(
            format_html(
                _(
                    "Position {position} is held by “<a href='{url}'>{title}</a>” ({state}). "
                    "The next free position is {free}."
                ),
                position=holder.series_position,
                url=reverse("admin:blog_note_change", args=[holder.pk]),
                title=holder.title,
                state=note_state_label(holder),
                free=free,
            ),
            code="series_position_taken",
        )


def note_state_label(note):
    if note.is_published():
        return _("published")
    if note.is_scheduled:
        return _("scheduled")
    return _("draft")


def _admin_url(name):
    try:
        return reverse(name)
    except NoReverseMatch:  # the admin is not mounted (a form used on its own)
        return ""


def _slug_url():
    return _admin_url("admin:blog_note_slug")


class PageForm(EditVersionFormMixin, forms.ModelForm):
    class Meta:
        model = Page
        fields = ["title", "slug", "language", "is_published", "body"]
        widgets = {"body": MarkdownEditorWidget}
