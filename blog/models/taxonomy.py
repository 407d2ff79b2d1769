"""How notes are grouped: bilingual tags (django-taggit) and ordered series."""

import re

from django.db import models
from django.urls import reverse
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from markdownx.models import MarkdownxField
from taggit.managers import _TaggableManager
from taggit.models import TagBase, TaggedItemBase

from ..rendering import render_markdown
from ..slugs import ascii_slug, unique_slug

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def interface_is_chinese():
    return (get_language() or "zh-hans").lower().startswith("zh")


class BilingualNameMixin:
    """Shows ``name_zh``/``name_en`` in the reader's interface language, the other beside it."""

    def _names(self):
        raise NotImplementedError

    @property
    def display_name(self):
        zh, en = self._names()
        return (zh or en) if interface_is_chinese() else (en or zh)

    @property
    def other_name(self):
        """The name in the other language, or "" when it would repeat the display name."""
        zh, en = self._names()
        other = (en if interface_is_chinese() else zh) or ""
        return "" if other == self.display_name else other

    @property
    def both_names(self):
        return " / ".join(name for name in (self.display_name, self.other_name) if name)


class Tag(BilingualNameMixin, TagBase):
    """A tag with an English name (taggit's ``name``), a Chinese name and an ASCII slug.

    Authors type either name into a note's tag field; :class:`BilingualTaggableManager`
    resolves both to the same tag.
    """

    name = models.CharField(
        _("English name"),
        max_length=100,
        unique=True,
        help_text=_("Shown in the English interface, e.g. “Scheduling”."),
    )
    name_zh = models.CharField(
        _("Chinese name"),
        max_length=100,
        blank=True,
        help_text=_("Shown in the Chinese interface, e.g. “调度”."),
    )
    slug = models.SlugField(
        pgettext_lazy("A tag slug", "slug"),
        max_length=100,
        unique=True,
        allow_unicode=False,
        help_text=_("ASCII, used in URLs. Derived from the English name when left empty."),
    )

    class Meta:
        verbose_name = _("tag")
        verbose_name_plural = _("tags")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["name_zh"],
                condition=~models.Q(name_zh=""),
                name="blog_tag_unique_name_zh",
            )
        ]

    def _names(self):
        return self.name_zh, self.name

    def slugify(self, tag, i=None):
        slug = ascii_slug(tag) or "tag"
        return f"{slug}-{i}" if i is not None else slug

    def get_absolute_url(self):
        return reverse("blog:tag-detail", kwargs={"slug": self.slug})


class TaggedNote(TaggedItemBase):
    """Through model with a real foreign key, so tag queries join instead of using generics."""

    content_object = models.ForeignKey("blog.Note", on_delete=models.CASCADE, related_name="+")
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="tagged_notes")

    class Meta:
        verbose_name = _("tagged note")
        verbose_name_plural = _("tagged notes")
        constraints = [
            models.UniqueConstraint(
                fields=["content_object", "tag"], name="blog_taggednote_unique_note_tag"
            )
        ]


class BilingualTaggableManager(_TaggableManager):
    """Resolves a typed tag by its English name, Chinese name or slug before creating one.

    A new tag typed in Chinese gets that name in both fields; the author adds the English
    name in the tag admin, which lists such tags under "needs an English name".
    """

    def _to_tag_model_instances(self, tags, tag_kwargs):
        tag_model = self.through.tag_model()
        manager = tag_model._default_manager
        resolved = []
        for tag in tags:
            if not isinstance(tag, str):
                resolved.append(tag)
                continue
            text = tag.strip()
            found = (
                manager.filter(models.Q(name__iexact=text) | models.Q(name_zh=text))
                .order_by("pk")
                .first()
            )
            if found is None:
                found = manager.create(
                    name=text, name_zh=text if HAN.search(text) else "", **tag_kwargs
                )
            if found not in resolved:
                resolved.append(found)
        return resolved


class Series(BilingualNameMixin, models.Model):
    """An ordered run of notes, e.g. “GPU 笔记 / GPU notes”."""

    title_zh = models.CharField(_("Chinese title"), max_length=200)
    title_en = models.CharField(_("English title"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    description = MarkdownxField(
        _("description"), blank=True, help_text=_("Markdown, shown on the series page.")
    )
    description_html = models.TextField(editable=False, default="")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("series")
        verbose_name_plural = _("series")
        ordering = ["title_en"]

    def __str__(self):
        return f"{self.title_zh} / {self.title_en}"

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = unique_slug(
                ascii_slug(self.title_en or self.title_zh),
                lambda s: Series.objects.filter(slug=s).exclude(pk=self.pk).exists(),
            )
        self.description_html = render_markdown(self.description).html
        if kwargs.get("update_fields"):
            kwargs["update_fields"] = {*kwargs["update_fields"], "slug", "description_html"}
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("blog:series-detail", kwargs={"slug": self.slug})

    def _names(self):
        return self.title_zh, self.title_en
