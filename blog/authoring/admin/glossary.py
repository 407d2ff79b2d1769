"""The glossary's admin: each term's forms and its definitions in the notes' editor."""

from django import forms
from django.contrib import admin
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from blog.authoring.admin.desk import AuthorDeskMedia
from blog.authoring.glossary_form import TermForm
from blog.authoring.history import RevisionAdminMixin
from blog.authoring.markdown_widget import MarkdownEditorWidget
from blog.authoring.render_ahead import RendersAheadAdminMixin
from blog.models import Language, Term


class DefinitionEditorWidget(MarkdownEditorWidget):
    """The Markdown editor for a definition written in one ``language``: the preview renders
    it as that language's text (the term's form has no language field to name)."""

    def __init__(self, language, attrs=None):
        self.language = language
        super().__init__(attrs, language_field=f"_preview_language_{language}")

    def render(self, name, value, attrs=None, renderer=None):
        # A hidden input holding the language, which the editor reads as the note form's
        # language field; the form has no field by that name, so a save ignores it.
        return format_html(
            '{}<input type="hidden" name="{}" value="{}">',
            super().render(name, value, attrs, renderer),
            self.language_field,
            self.language,
        )


@admin.register(Term)
class TermAdmin(RendersAheadAdminMixin, RevisionAdminMixin, admin.ModelAdmin):
    """The glossary: each term's forms in both languages, its definitions in the notes' editor, the
    notes that explain it; revisions as for notes."""

    form = TermForm
    Media = AuthorDeskMedia
    list_display = ["chinese", "english", "keep_in_english", "note_count"]
    list_display_links = ["chinese", "english"]
    list_filter = ["keep_in_english"]
    search_fields = [
        *("chinese", "english", "chinese_variants", "english_variants", "slug"),
        *("definition_zh", "definition_en"),
    ]
    ordering = ["slug"]
    autocomplete_fields = ["explained_in"]
    fieldsets = [
        (None, {"fields": ["chinese", "english", "slug", "keep_in_english"]}),
        (_("Other accepted forms"), {"fields": ["chinese_variants", "english_variants"]}),
        (_("Definitions"), {"fields": ["definition_zh", "definition_en"]}),
        (None, {"fields": ["explained_in"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(note_count=Count("uses", distinct=True))

    @admin.display(description=_("notes using it"), ordering="note_count")
    def note_count(self, term):
        return term.note_count

    def view_on_site(self, term):
        return reverse("blog:glossary-term", kwargs={"slug": term.slug})

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name in {"definition_zh", "definition_en"}:
            language = Language.CHINESE if db_field.name == "definition_zh" else Language.ENGLISH
            kwargs["widget"] = DefinitionEditorWidget(language)
        elif db_field.name in {"chinese_variants", "english_variants"}:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 40})
        return super().formfield_for_dbfield(db_field, request, **kwargs)
