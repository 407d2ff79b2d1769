"""The CMS part: pages such as About, and the site's own settings, edited in the admin."""

from django.db import DEFAULT_DB_ALIAS, models
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _
from markdownx.models import MarkdownxField

from blog.models import content_paths
from blog.models.images import with_pictures
from blog.models.notes import Language
from blog.models.rendered import RenderedMarkdownMixin
from blog.text.bilingual import BilingualNameMixin, contents_title, in_interface_language
from blog.text.slugs import ascii_slug, unique_slug
from blog.text.validators import validate_link_url


class PageQuerySet(models.QuerySet):
    def published(self):
        return self.filter(is_published=True)


class Page(RenderedMarkdownMixin, models.Model):
    """A standalone page (About, Now, Colophon) at /pages/<slug>/."""

    title = models.CharField(_("title"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True, blank=True)
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.CHINESE
    )
    body = MarkdownxField(_("body"), blank=True)
    body_html = models.TextField(editable=False, default="")
    excerpt = models.TextField(editable=False, default="")
    is_published = models.BooleanField(
        _("published"), default=False, help_text=_("Unpublished pages are visible to staff only.")
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = PageQuerySet.as_manager()

    class Meta:
        verbose_name = _("page")
        verbose_name_plural = _("pages")
        ordering = ["title"]

    def __str__(self):
        return self.title

    markdown_fields = ("body", "language")  # language: the [TOC] title
    derived_fields = ("body_html", "excerpt")

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = unique_slug(
                ascii_slug(self.title) or "page",
                lambda s: Page.objects.filter(slug=s).exclude(pk=self.pk).exists(),
            )
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return content_paths.path("page", self.slug)

    def fill_derived_fields(self):
        rendered = self.render_field("body", contents_title(self.language))
        # Stored images as <picture>s (blog.models.images), as in notes.
        self.body_html = with_pictures(rendered.html, using=self._state.db or "default").html
        self.excerpt = rendered.excerpt


class SiteSettings(RenderedMarkdownMixin, models.Model):
    """The one row of site-wide settings (:meth:`load`; pages read a cached copy)."""

    title = models.CharField(_("site title"), max_length=100, default="笔记 biji")
    tagline_zh = models.CharField(_("Chinese tagline"), max_length=200, blank=True)
    tagline_en = models.CharField(_("English tagline"), max_length=200, blank=True)
    author = models.CharField(_("author"), max_length=100, blank=True)
    description = models.TextField(
        _("description"), blank=True, help_text=_("Used in search engines and feeds.")
    )
    footer = models.TextField(_("footer"), blank=True, help_text=_("Markdown."))
    footer_html = models.TextField(editable=False, default="")
    # The home page's share cards, one per interface language (blog.images.cards).
    card_zh = models.CharField(editable=False, max_length=255, default="")
    card_en = models.CharField(editable=False, max_length=255, default="")
    show_other_languages = models.BooleanField(
        _("list notes in the other language"),
        default=True,
        help_text=_(
            "Lists, counts and language feeds show a translated note once, in the reader's "
            "language. Notes with no version in that language are shown in their own language "
            "with a marker; untick to leave them out of that interface's lists."
        ),
    )
    # The terms readers may reuse the notes under: in a note's Markdown source, its citation
    # metadata and its feeds. Empty: all rights reserved (nothing is claimed for the author).
    licence = models.CharField(
        _("licence"),
        max_length=100,
        blank=True,
        help_text=_("The licence of the notes, e.g. CC BY-SA 4.0. Empty: all rights reserved."),
    )
    licence_url = models.URLField(
        _("licence URL"),
        max_length=300,
        blank=True,
        validators=[validate_link_url],
        help_text=_("The licence's text, e.g. https://creativecommons.org/licenses/by-sa/4.0/"),
    )

    class Meta:
        verbose_name = _("site settings")
        verbose_name_plural = _("site settings")

    def __str__(self):
        return str(_("Site settings"))

    markdown_fields = ("footer",)
    derived_fields = ("footer_html",)

    def save(self, *args, **kwargs):
        self.pk = 1  # one row, whatever the admin sends
        super().save(*args, **kwargs)

    def fill_derived_fields(self):
        self.footer_html = self.render_field("footer").html

    @property
    def tagline(self):
        """The tagline in the reader's interface language (the other one if it is empty)."""
        return in_interface_language(self.tagline_zh, self.tagline_en)

    @classmethod
    def load(cls, using=DEFAULT_DB_ALIAS):
        """The settings from the database with ``navigation_links``, or unsaved defaults. Pages read
        :func:`blog.caching.site_settings` instead."""
        site = cls.objects.using(using).filter(pk=1).first() or cls(pk=1)
        site.navigation_links  # noqa: B018  (loaded now, so a copy of the settings holds them)
        return site

    @cached_property
    def navigation_links(self):
        return [] if self._state.adding else list(self.navigation.all())


class NavigationLink(BilingualNameMixin, models.Model):
    """One entry of the site's navigation bar, in the order given."""

    site = models.ForeignKey(SiteSettings, on_delete=models.CASCADE, related_name="navigation")
    label_zh = models.CharField(_("Chinese label"), max_length=50)
    label_en = models.CharField(_("English label"), max_length=50)
    url = models.CharField(
        _("URL"),
        max_length=300,
        validators=[validate_link_url],
        help_text=_("A path on this site (/series/) or a full URL."),
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        verbose_name = _("navigation link")
        verbose_name_plural = _("navigation")
        ordering = ["position", "id"]

    def __str__(self):
        return f"{self.label_zh} / {self.label_en}"

    def bilingual_names(self):
        return self.label_zh, self.label_en
