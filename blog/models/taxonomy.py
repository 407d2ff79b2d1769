"""How notes are grouped: bilingual tags (django-taggit) and ordered series."""

from django.db import IntegrityError, models, router, transaction
from django.db.models import signals
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from markdownx.models import MarkdownxField
from taggit.managers import TaggableManager, _TaggableManager
from taggit.models import NaturalKeyManager, TagBase, TaggedItemBase

from blog.models import content_paths
from blog.models.rendered import RenderedMarkdownMixin
from blog.text.bilingual import BilingualNameMixin
from blog.text.cjk import has_cjk
from blog.text.slugs import ascii_slug, unique_slug


class TagManager(NaturalKeyManager):
    def find(self, text):
        """The tag whose English name (any case) or Chinese name is ``text``, or None."""
        text = text.strip()
        return (
            self.filter(models.Q(name__iexact=text) | models.Q(name_zh=text)).order_by("pk").first()
        )

    def resolve(self, names):
        """Tags for names typed by an author, in order, without repeats; new ones are created.

        A new name with Chinese characters becomes the Chinese name only. Of two requests creating
        the same tag at once, the loser finds the winner's row.
        """
        tags = []
        for name in names:
            tag = name if isinstance(name, Tag) else self._find_or_create(name.strip())
            if tag not in tags:
                tags.append(tag)
        return tags

    def _find_or_create(self, text):
        tag = self.find(text)
        if tag is not None:
            return tag
        try:
            with transaction.atomic(using=self.db):
                # A name typed in Chinese is the Chinese name only: the English one is left
                # empty for the author to fill in (admin → Tags), never a copy.
                if has_cjk(text):
                    return self.create(name="", name_zh=text)
                return self.create(name=text)
        except IntegrityError:
            tag = self.find(text)
            if tag is None:
                raise
            return tag


class Tag(BilingualNameMixin, TagBase):
    """A tag with an English name (taggit's ``name``), a Chinese name and an ASCII slug; either name
    finds it."""

    # Empty for a tag typed in Chinese until the author names it in English; unique when
    # set (the constraint below), where taggit's own field is unique and required.
    name = models.CharField(
        _("English name"),
        max_length=100,
        blank=True,
        help_text=_(
            "Shown in the English interface, e.g. “Scheduling”. Leave it empty when it is not "
            "known yet: the Chinese name is shown instead."
        ),
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
    # Share cards, one per interface language (blog.images.cards); "" until made.
    card_zh = models.CharField(editable=False, max_length=255, default="")
    card_en = models.CharField(editable=False, max_length=255, default="")

    class Meta:
        verbose_name = _("tag")
        verbose_name_plural = _("tags")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["name"],
                condition=~models.Q(name=""),
                name="blog_tag_unique_name",
                violation_error_message=_("Another tag already has this English name."),
            ),
            models.UniqueConstraint(
                fields=["name_zh"],
                condition=~models.Q(name_zh=""),
                name="blog_tag_unique_name_zh",
                violation_error_message=_("Another tag already has this Chinese name."),
            ),
            models.CheckConstraint(
                condition=~models.Q(name="", name_zh=""),
                name="blog_tag_has_a_name",
                violation_error_message=_("Give the tag a Chinese or an English name."),
            ),
        ]

    objects = TagManager()

    def __str__(self):
        # In the interface's language, as the admin's messages ("The tag “调度” was changed")
        # and lists name it.
        return self.display_name

    def bilingual_names(self):
        return self.name_zh, self.name

    def slugify(self, tag, i=None):
        # taggit passes ``name``, empty for a tag typed in Chinese: the pinyin of that.
        slug = ascii_slug(tag or self.name_zh) or "tag"
        return f"{slug}-{i}" if i is not None else slug

    def get_absolute_url(self):
        return content_paths.path("tag", self.slug)


class TaggedNote(TaggedItemBase):
    """Through model with a real foreign key, so tag queries join instead of using generics."""

    content_object = models.ForeignKey("blog.Note", on_delete=models.CASCADE, related_name="+")
    # Indexed with the note below: a tag's newest notes are read from the index alone.
    tag = models.ForeignKey(
        Tag, on_delete=models.CASCADE, related_name="tagged_notes", db_index=False
    )

    class Meta:
        verbose_name = _("tagged note")
        verbose_name_plural = _("tagged notes")
        constraints = [
            models.UniqueConstraint(
                fields=["content_object", "tag"], name="blog_taggednote_unique_note_tag"
            )
        ]
        indexes = [
            # A tag's lists, and its newest notes for related notes (blog.public.related).
            models.Index(fields=["tag", "content_object"], name="blog_taggednote_tag_note_idx"),
        ]


def set_tags(note, tags):
    """Give ``note`` exactly these :class:`Tag` instances, by primary key: taggit's ``set()``
    compares English names, which tags still waiting for one share."""
    note.tags.set(tags, clear=True)


class NoteTags(_TaggableManager):
    """``note.tags``: taggit's manager, removing tags by primary key.

    taggit's ``remove()`` matches by English ``name``, so a tag without one could never be removed.
    ``TaggableManager(manager=…)`` is taggit's documented way to change it.
    """

    def remove(self, *tags):
        if not tags:
            return
        db = router.db_for_write(TaggedNote, instance=self.instance)
        wanted = [
            tag if isinstance(tag, Tag) else Tag.objects.db_manager(db).find(tag) for tag in tags
        ]
        rows = TaggedNote.objects.using(db).filter(
            content_object=self.instance, tag__in=[tag.pk for tag in wanted if tag is not None]
        )
        # As Django's own related managers do: a prefetched list of the note's tags is stale.
        getattr(self.instance, "_prefetched_objects_cache", {}).pop(self.prefetch_cache_name, None)
        removed = set(rows.values_list("tag_id", flat=True))
        sent = {"sender": TaggedNote, "instance": self.instance, "reverse": False}
        sent |= {"model": Tag, "pk_set": removed, "using": db}
        signals.m2m_changed.send(action="pre_remove", **sent)
        rows.delete()
        signals.m2m_changed.send(action="post_remove", **sent)


class BilingualTaggableManager(TaggableManager):
    """taggit's field, finding typed tags by either name (:meth:`TagManager.resolve`), where taggit
    knows only the English ``name``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("manager", NoteTags)
        super().__init__(*args, **kwargs)

    def save_form_data(self, instance, value):
        set_tags(instance, Tag.objects.resolve(value))

    def deconstruct(self):
        # The database sees taggit's field: migrations need not import this module.
        name, _path, args, kwargs = super().deconstruct()
        return name, "taggit.managers.TaggableManager", args, kwargs


class Series(BilingualNameMixin, RenderedMarkdownMixin, models.Model):
    """An ordered run of notes, e.g. “GPU 笔记 / GPU notes”."""

    title_zh = models.CharField(_("Chinese title"), max_length=200)
    title_en = models.CharField(_("English title"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    description = MarkdownxField(
        _("description"), blank=True, help_text=_("Markdown, shown on the series page.")
    )
    description_html = models.TextField(editable=False, default="")
    # Share cards, one per interface language (blog.images.cards); "" until made.
    card_zh = models.CharField(editable=False, max_length=255, default="")
    card_en = models.CharField(editable=False, max_length=255, default="")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("series")
        verbose_name_plural = _("series")
        ordering = ["title_en"]

    def __str__(self):
        return f"{self.title_zh} / {self.title_en}"

    markdown_fields = ("description",)
    derived_fields = ("description_html",)

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = unique_slug(
                ascii_slug(self.title_en or self.title_zh),
                lambda s: Series.objects.filter(slug=s).exclude(pk=self.pk).exists(),
            )
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return content_paths.path("series", self.slug)

    def fill_derived_fields(self):
        self.description_html = self.render_field("description").html

    def bilingual_names(self):
        return self.title_zh, self.title_en
