"""The glossary: terms with forms, variants and definitions per language, kept consistent across
notes. :class:`TermUse` records which notes use which terms, so a change re-renders only those."""

import re

from django.db import models
from django.utils.translation import gettext_lazy as _
from markdownx.models import MarkdownxField

from blog.models.notes import Language, Note
from blog.models.rendered import RenderedMarkdownMixin
from blog.text.slugs import ascii_slug, unique_slug

NAME_FIELDS = ("chinese", "english")
VARIANT_FIELDS = ("chinese_variants", "english_variants")
FORM_FIELDS = (*NAME_FIELDS, *VARIANT_FIELDS)

# Variants are typed one per line; commas and the Chinese list marks separate them too.
_VARIANT_SEPARATORS = re.compile(r"[\n,，、;；]+")


def split_variants(text):
    seen, forms = set(), []
    for form in _VARIANT_SEPARATORS.split(text or ""):
        form = " ".join(form.split())
        if form and form.casefold() not in seen:
            seen.add(form.casefold())
            forms.append(form)
    return forms


class Term(RenderedMarkdownMixin, models.Model):
    slug = models.SlugField(
        _("slug"),
        max_length=100,
        unique=True,
        blank=True,
        help_text=_("The term's anchor and address in the glossary; proposed from its name."),
    )
    english = models.CharField(_("English term"), max_length=200, blank=True)
    chinese = models.CharField(_("Chinese term"), max_length=200, blank=True)
    english_variants = models.TextField(
        _("other English spellings"),
        blank=True,
        help_text=_("One per line (or separated by commas), e.g. WGMMA and wgmma."),
    )
    chinese_variants = models.TextField(
        _("other Chinese forms"),
        blank=True,
        help_text=_("One per line (or separated by commas or 、), e.g. warp 束."),
    )
    keep_in_english = models.BooleanField(
        _("keep in English"),
        default=False,
        help_text=_("Chinese text may use the English form (as for “tensor core”)."),
    )
    definition_en = MarkdownxField(_("English definition"), blank=True)
    definition_zh = MarkdownxField(_("Chinese definition"), blank=True)
    explained_in = models.ManyToManyField(
        Note,
        verbose_name=_("explained in"),
        related_name="explained_terms",
        blank=True,
        help_text=_("Notes that explain the term; the glossary links them."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    definition_en_html = models.TextField(editable=False, default="")
    definition_zh_html = models.TextField(editable=False, default="")

    markdown_fields = ("definition_en", "definition_zh")
    derived_fields = ("definition_en_html", "definition_zh_html")

    class Meta:
        verbose_name = _("glossary term")
        verbose_name_plural = _("glossary terms")
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(english="", chinese=""),
                name="blog_term_has_a_name",
                violation_error_message=_("A term needs a Chinese or an English form."),
            ),
        ]

    def __str__(self):
        if self.english and self.chinese:
            return f"{self.chinese} / {self.english}"
        return self.chinese or self.english

    def save(self, *args, **kwargs):
        self.english, self.chinese = " ".join(self.english.split()), " ".join(self.chinese.split())
        if not self.slug:
            self.slug = unique_slug(
                ascii_slug(self.english or self.chinese, max_length=90) or "term",
                lambda slug: Term.objects.filter(slug=slug).exclude(pk=self.pk).exists(),
                max_length=100,
            )
        super().save(*args, **kwargs)

    def clean(self):
        # As save() stores them; an empty pair is reported once, by the constraint.
        self.english, self.chinese = " ".join(self.english.split()), " ".join(self.chinese.split())

    def fill_derived_fields(self):
        self.definition_en_html = self.render_field("definition_en", "Contents").html
        self.definition_zh_html = self.render_field("definition_zh", "目录").html

    def name(self, language):
        """The term as text in ``language`` reads it: its form there, else the other."""
        if language == Language.CHINESE:
            return self.chinese or self.english
        return self.english or self.chinese

    def definition_html(self, language):
        if language == Language.CHINESE:
            return self.definition_zh_html or self.definition_en_html
        return self.definition_en_html or self.definition_zh_html

    def forms(self, language):
        """The forms text in ``language`` may use for the term: its name and variants, and in
        Chinese the English ones when it keeps them or has no Chinese form."""
        english = [self.english, *split_variants(self.english_variants)] if self.english else []
        english += [] if self.english else split_variants(self.english_variants)
        chinese = [self.chinese, *split_variants(self.chinese_variants)] if self.chinese else []
        chinese += [] if self.chinese else split_variants(self.chinese_variants)
        if language == Language.CHINESE:
            return chinese + english if (self.keep_in_english or not chinese) else chinese
        return english or chinese

    def all_forms(self):
        """Every form of the term in either language (search looks for all of them)."""
        forms = self.forms(Language.CHINESE) + self.forms(Language.ENGLISH)
        return list(dict.fromkeys(forms))

    def typed_forms(self):
        """(field, form) for each form as the author typed it, names first."""
        forms = [(field, " ".join(getattr(self, field).split())) for field in NAME_FIELDS]
        forms += [
            (field, form)
            for field in VARIANT_FIELDS
            for form in split_variants(getattr(self, field))
        ]
        return [(field, form) for field, form in forms if form]

    def clashes(self):
        """Forms of this term another term has already: [(field, form, the other term)]. A shared
        form would be marked and searched as either."""
        mine = {}
        for field, form in self.typed_forms():
            mine.setdefault(form.casefold(), (field, form))
        found = []
        others = Term.objects.exclude(pk=self.pk) if self.pk else Term.objects.all()
        for other in others.only("slug", *FORM_FIELDS).order_by("slug"):
            for _field, form in other.typed_forms():
                clash = mine.pop(form.casefold(), None)
                if clash is not None:
                    found.append((*clash, other))
        return found


class TermUse(models.Model):
    """A note uses a term (derived on render: the glossary lists its notes, and a change of the
    term re-renders them)."""

    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="term_uses")
    term = models.ForeignKey(Term, on_delete=models.CASCADE, related_name="uses")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["note", "term"], name="blog_termuse_unique"),
        ]

    def __str__(self):
        return f"{self.note_id} uses {self.term_id}"
