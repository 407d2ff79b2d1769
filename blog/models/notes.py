"""The note: what the author writes, and what is derived from it on save.
One module though long: the Note model, its queryset and its save steps share one published rule."""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from markdownx.models import MarkdownxField

from blog.models import content_paths
from blog.models.images import with_pictures
from blog.models.rendered import RenderedMarkdownMixin
from blog.models.taxonomy import BilingualTaggableManager, TaggedNote
from blog.text.bilingual import contents_title
from blog.text.blocks import block_hashes
from blog.text.date_range import ORIGINAL, PUBLICATION
from blog.text.slugs import ascii_slug, proposed_slug, unique_slug
from blog.text.stats import make_excerpt
from blog.text.validators import validate_link_url


class Language(models.TextChoices):
    CHINESE = "zh-hans", _("Chinese")
    ENGLISH = "en", _("English")


class Status(models.TextChoices):
    DRAFT = "draft", _("Draft")
    PUBLISHED = "published", _("Published")


class NoteQuerySet(models.QuerySet):
    def published(self):
        """The one published rule: published status and a publication time not in the future.
        Everything readers see goes through it, so a scheduled note appears everywhere when its time
        comes."""
        return self.filter(published_condition())

    def for_listing(self):
        """What a list of notes shows: the series in the same query, tags in one more."""
        return self.select_related("series").prefetch_related("tags")

    def in_interface(self, language, *, others=True):
        """The language rule of every list: a translated pair is one entry, in the interface
        ``language``; a note with no version in it appears in its own unless ``others`` is False.
        Apply after :meth:`published`."""
        return self.filter(in_interface(language, others=others))


def published_condition():
    """:meth:`NoteQuerySet.published` as a condition, for an annotation or an aggregate."""
    return Q(status=Status.PUBLISHED, published_at__lte=timezone.now())


def in_interface(language, *, others=True):
    """:meth:`NoteQuerySet.in_interface` as a condition, for an aggregate's ``filter=``."""
    if not others:
        return Q(language=language)
    versions = Note.objects.published().filter(language=language)
    has_version = Q(Exists(versions.filter(pk=OuterRef("translation_id")))) | Q(
        Exists(versions.filter(translation_id=OuterRef("pk")))
    )
    return Q(language=language) | ~has_version


class Note(RenderedMarkdownMixin, models.Model):
    title = models.CharField(_("title"), max_length=200)
    slug = models.SlugField(
        _("slug"),
        max_length=100,
        unique=True,
        blank=True,
        help_text=_(
            "ASCII, used in the note's URL; keep it stable once published. Left empty, it is "
            "derived from the title (pinyin for Chinese)."
        ),
    )
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.CHINESE
    )
    body = MarkdownxField(_("body"), blank=True, help_text=_("Markdown."))
    summary = models.TextField(
        _("summary"),
        blank=True,
        help_text=_("Optional. Shown in lists and feeds; derived from the body when empty."),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    published_at = models.DateTimeField(
        _("published at"),
        null=True,
        blank=True,
        db_index=True,
        help_text=_(
            "A published note appears from this moment; a future time schedules it. "
            "Left empty, publishing sets it to now."
        ),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    series = models.ForeignKey(
        "blog.Series",
        verbose_name=_("series"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="notes",
    )
    series_position = models.PositiveSmallIntegerField(
        _("position in series"),
        null=True,
        blank=True,
        help_text=_("1 for the first part. Unique within the series."),
    )
    tags = BilingualTaggableManager(
        verbose_name=_("tags"),
        through=TaggedNote,
        blank=True,
        help_text=_("Comma-separated; Chinese or English names of existing tags both work."),
    )
    translation = models.OneToOneField(
        "self",
        verbose_name=_("translation"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="translated_from",
        help_text=_(
            "The same note in the other language. Set it on either note: both show the link."
        ),
    )

    source_title = models.CharField(_("original title"), max_length=300, blank=True)
    source_author = models.CharField(_("original author"), max_length=200, blank=True)
    source_url = models.URLField(
        _("original URL"), max_length=500, blank=True, validators=[validate_link_url]
    )
    source_date = models.DateField(_("original date"), null=True, blank=True)
    # Credits, written in the note's own language (each note of a pair has its own): who
    # translated it, and who wrote it with the site's author (blog.models.credits).
    translator = models.CharField(
        _("translator"),
        max_length=200,
        blank=True,
        help_text=_("Who translated this note, as readers of its language know them."),
    )
    coauthors = models.CharField(
        _("co-authors"),
        max_length=500,
        blank=True,
        help_text=_("Who wrote it with you, separated by commas (, ， or 、)."),
    )

    cover = models.ImageField(_("cover image"), upload_to="covers/%Y/", blank=True)
    cover_alt = models.CharField(_("cover description"), max_length=300, blank=True)
    # The cover as the page shows it (a <picture> once its variants exist), rendered with the
    # body; "" without a cover.
    cover_html = models.TextField(editable=False, default="")
    # Email subscribers (blog.mail): the author's switch, and when the note was announced to
    # them (its deliveries queued) — a note is announced once, never again on a re-publish.
    emails_subscribers = models.BooleanField(
        _("email it to subscribers"),
        default=True,
        help_text=_("When it is first published, subscribers of its language get it by email."),
    )
    announced_at = models.DateTimeField(_("emailed"), null=True, blank=True, editable=False)
    # The share card (blog.images.cards): a media file whose name changes with what it shows;
    # "" until the background runner has made it.
    card = models.CharField(_("share card"), max_length=255, editable=False, default="")

    # Derived from the Markdown by blog.rendering (see fill_derived_fields); never edited,
    # never rendered per request.
    body_html = models.TextField(editable=False, default="")
    toc_html = models.TextField(editable=False, default="")
    excerpt = models.TextField(_("excerpt"), editable=False, default="")
    plain_text = models.TextField(editable=False, default="")
    word_count = models.PositiveIntegerField(_("words"), editable=False, default=0)
    reading_minutes = models.PositiveSmallIntegerField(_("reading time"), editable=False, default=1)
    marks_terms = models.BooleanField(
        _("mark glossary terms"),
        default=True,
        help_text=_("The first use of a glossary term in each section links to its definition."),
    )
    # Glossary terms of its translation missing here or under a form the glossary does not
    # accept (blog.authoring.term_check): the change list's count and filter.
    term_warnings = models.PositiveSmallIntegerField(_("term warnings"), editable=False, default=0)

    # The body's blocks, rendered one by one for the parallel view of a translated pair.
    parallel_blocks = models.JSONField(editable=False, default=list)

    # Translation sync (blog.models.translation_sync). The hashes of the body's blocks, and when
    # they last changed: derived from the Markdown on save, never by a re-render, so that only
    # a change of what the text says moves them.
    block_hashes = models.TextField(editable=False, default="")
    text_changed_at = models.DateTimeField(_("text changed"), null=True, editable=False)
    # The other note's block hashes when this note was last brought in line with it; "" when
    # the pair has never been compared (this note is then never behind). The author's state:
    # kept in revisions, exports and backups.
    synced_hashes = models.TextField(editable=False, default="")
    # The key an import paired the note with its translation by (Hugo's ``translationKey``),
    # given back by the export while both notes of the pair keep it; "" otherwise.
    translation_key = models.TextField(editable=False, default="")

    objects = NoteQuerySet.as_manager()

    class Meta:
        verbose_name = _("note")
        verbose_name_plural = _("notes")
        # Drafts (no date) last on every database; SQLite and PostgreSQL disagree otherwise.
        ordering = [models.F("published_at").desc(nulls_last=True), "-id"]
        get_latest_by = "published_at"
        # Each constraint carries a message for the author: Django's default names the
        # constraint ("Constraint “…” is violated"), which means nothing to a writer.
        constraints = [
            # Per language: a note and its translation hold the same position ("Part 2 of 5"
            # in both languages).
            models.UniqueConstraint(
                fields=["series", "language", "series_position"],
                condition=models.Q(series__isnull=False, series_position__isnull=False),
                name="blog_note_unique_series_language_position",
                violation_error_message=_(
                    "Another note in this language already holds this position in the series."
                ),
            ),
            models.CheckConstraint(
                condition=~models.Q(status="published") | models.Q(published_at__isnull=False),
                name="blog_note_published_has_date",
                violation_error_message=_("A published note needs a publication time."),
            ),
        ]
        # Also blog_note_recent_idx, in the lists' order (migration 0009: database-specific
        # SQL, as SQLite takes no NULLS LAST in an index).
        indexes = [
            models.Index(fields=["status", "published_at"], name="blog_note_pub_idx"),
            # A series' published parts: without it SQLite's planner (no statistics) prefers
            # the date index and reads every published note to find 20 parts.
            models.Index(fields=["series", "status", "published_at"], name="blog_note_series_idx"),
        ]

    def __str__(self):
        return self.title

    # Derived by fill_derived_fields(), stored by save() and render().
    # language: the [TOC] title and the glossary's forms; marks_terms: the terms marked or not.
    # cover and cover_alt: the cover's <picture> (cover_html) is rendered with the body.
    markdown_fields = ("body", "summary", "language", "marks_terms", "cover", "cover_alt")
    derived_fields = (
        "body_html",
        "cover_html",
        "toc_html",
        "excerpt",
        "plain_text",
        "word_count",
        "reading_minutes",
        "parallel_blocks",
    )
    # Derived from the body by save() alone (a re-render leaves them): translation sync.
    text_state_fields = ("block_hashes", "text_changed_at")

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = unique_slug(
                proposed_slug(self.title) or ascii_slug(self.title),  # as the editor proposes it
                lambda s: Note.objects.filter(slug=s).exclude(pk=self.pk).exists(),
            )
        if self.status == Status.PUBLISHED and self.published_at is None:
            self.published_at = timezone.now()
        if self.series_id is None:
            self.series_position = None
        update_fields = kwargs.get("update_fields")
        if self._hash_blocks(update_fields) and update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "block_hashes", "text_changed_at"}
        created = self._state.adding
        # Only this note's row: rules that span a translated pair are blog.models.translations'.
        super().save(*args, **kwargs)
        self._store_term_uses(created)

    def get_absolute_url(self):
        return content_paths.path("note", self.slug)

    def is_published(self):
        return (
            self.status == Status.PUBLISHED
            and self.published_at is not None
            and self.published_at <= timezone.now()
        )

    is_published.boolean = True
    is_published.short_description = _("live")

    @property
    def is_scheduled(self):
        return self.status == Status.PUBLISHED and not self.is_published()

    @property
    def shows_toc_box(self):
        """The contents box: two headings or more (one would only repeat it), and no ``[TOC]`` in
        the body."""
        return self.toc_html.count("<li") >= 2 and 'class="toc"' not in self.body_html

    @property
    def updated_after_publication(self):
        """Edited on a later day than it was published: the page shows "Updated"."""
        if self.published_at is None or self.updated_at is None:
            return False
        return timezone.localdate(self.updated_at) > timezone.localdate(self.published_at)

    @property
    def is_translated_article(self):
        return bool(self.source_author or self.source_url)

    @property
    def counterpart(self):
        """The note's translation, whichever of the two notes holds the link."""
        if self.translation_id:
            return self.translation
        try:
            return self.translated_from
        except Note.DoesNotExist:
            return None

    def clean(self):
        # Published with an empty time means now: the form shows no error for it.
        if self.status == Status.PUBLISHED and self.published_at is None:
            self.published_at = timezone.now()
        self._check_date_range()
        if self.series_position is not None and self.series_id is None:
            raise ValidationError({"series_position": _("Choose a series for this position.")})
        if self.translation_id and self.translation_id == self.pk:
            raise ValidationError({"translation": _("A note cannot be its own translation.")})
        if self.translation and self.translation.language == self.language:
            raise ValidationError(
                {"translation": _("A translation is written in the other language.")}
            )
        self._share_series_with_translation()

    def _check_date_range(self):
        """Dates every database stores and every page can show (:mod:`blog.text.date_range`);
        ``updated_at`` is set by save()."""
        errors = {}
        if message := PUBLICATION.error(self.published_at):
            errors["published_at"] = message
        if message := ORIGINAL.error(self.source_date):
            errors["source_date"] = message
        if errors:
            raise ValidationError(errors)

    def linked_translation(self):
        """The other note of the pair as the form left it (link on either side), or None."""
        if self.translation_id:
            return self.translation
        if self.pk is None:
            return None
        return Note.objects.filter(translation_id=self.pk).first()

    def position_holder(self, series_id, language, position):
        """The note other than this one at ``position`` of the series in ``language``."""
        if series_id is None or position is None:
            return None
        return (
            Note.objects.filter(series_id=series_id, language=language, series_position=position)
            .exclude(pk=self.pk)
            .first()
        )

    def _share_series_with_translation(self):
        """A translation stands at its original's place in the series: a note outside any series
        takes its translation's series and position."""
        other = self.linked_translation()
        if other is None:
            return
        if self.series_id is None and self.series_position is None and other.series_id:
            self.series_id, self.series_position = other.series_id, other.series_position
            return
        if self.series_id is None:
            return
        holder = other.position_holder(self.series_id, other.language, self.series_position)
        if holder is not None and holder.pk != self.pk:
            raise ValidationError(
                {
                    "series_position": _(
                        "The translation “%(translation)s” moves with this note, but “%(holder)s” "
                        "already holds this position in its language."
                    )
                    % {"translation": other.title, "holder": holder.title}
                }
            )

    def _hash_blocks(self, update_fields) -> bool:
        """Hash the body's blocks as it is saved; True when the hashes changed, dated for the notice
        on its translation."""
        if update_fields is not None and "body" not in update_fields:
            return False
        if "body" not in self.__dict__:  # deferred: not being changed
            return False
        hashes = " ".join(block_hashes(self.body))
        if hashes == self.block_hashes:
            return False
        self.block_hashes = hashes
        self.text_changed_at = timezone.now()
        return True

    def has_pair(self) -> bool:
        return bool(self.translation_id) or (
            self.pk is not None and Note.objects.filter(translation_id=self.pk).exists()
        )

    def fill_derived_fields(self):
        rendered = self.render_field("body", contents_title(self.language))
        # Only a note with a translation is read in parallel (linking one renders it again).
        self.parallel_blocks = (
            self.render_field_blocks("body", contents_title(self.language))
            if self.has_pair()
            else []
        )
        # Stored images as <picture>s, the cover as the page shows it (blog.models.images).
        self.body_html, self.cover_html = with_pictures(
            self._with_terms(rendered.html),
            cover=self.cover,
            cover_alt=self.cover_alt,
            using=self._state.db or "default",
        )
        self.toc_html = rendered.toc_html
        self.plain_text = rendered.plain_text
        self.word_count = rendered.word_count
        self.reading_minutes = rendered.reading_minutes
        self.excerpt = make_excerpt(self.summary) if self.summary.strip() else rendered.excerpt

    def _with_terms(self, html):
        """The body with the glossary's terms marked (unless switched off), the terms used
        remembered for save(). Only the page's HTML: the search text and excerpt stay the text."""
        from blog.models.term_matching import mark_terms  # it looks the glossary up

        marked, self._rendered_term_ids = mark_terms(
            html, self.language, self._state.db or "default"
        )
        return marked.html if self.marks_terms else html

    def _store_term_uses(self, created):
        """The glossary terms the body rendered with (fill_derived_fields) become the note's
        TermUse rows, once the note has a row of its own."""
        term_ids = self.__dict__.pop("_rendered_term_ids", None)
        if term_ids is not None:
            from blog.models.term_matching import store_term_uses

            store_term_uses(self, term_ids, self._state.db or "default", created=created)
