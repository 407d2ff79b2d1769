"""Which feeds show a note, with the rules of :mod:`blog.public.feeds`, from what the database says
now. Both versions' feeds are named (an entry shows its translation's notice). URLs are absolute, as
a hub matches a ping by the feed's exact ``rel="self"`` URL."""

from django.db.models import Q
from django.urls import NoReverseMatch, reverse

from blog.models import Language, Note, Series, SiteSettings, Tag
from blog.text.site_url import absolute_url

FORMATS = ("rss", "atom")


def feed_urls(scope, **kwargs):
    """The RSS and Atom URLs of one scope (``all``, ``language``, ``tag``, ``series``); none
    for a slug no URL can hold (such a tag or series has no feed)."""
    try:
        return [absolute_url(reverse(f"feeds:{scope}-{fmt}", kwargs=kwargs)) for fmt in FORMATS]
    except NoReverseMatch:
        return []


def notes_and_other_versions(note_ids):
    """The primary keys of the published notes among ``note_ids`` and of their published
    other versions (two queries)."""
    published = Note.objects.published()
    ids = set(published.filter(pk__in=note_ids).values_list("pk", flat=True))
    if not ids:
        return set()
    others = published.filter(Q(translation_id__in=ids) | Q(translated_from__in=ids))
    return ids | set(others.values_list("pk", flat=True))


def feeds_showing(note_ids):
    """The URLs of every feed that shows one of the notes ``note_ids`` or its other version,
    in a fixed order: the site's, the languages', the series', the tags' (slug order)."""
    ids = notes_and_other_versions(note_ids)
    if not ids:
        return []
    urls = feed_urls("all")
    others = SiteSettings.objects.filter(pk=1).values_list("show_other_languages", flat=True)
    others = others.first() is not False  # the default when the settings were never saved
    for language in Language.values:
        listed = Note.objects.published().in_interface(language, others=others)
        if listed.filter(pk__in=ids).exists():
            urls += feed_urls("language", language=language)
    series = Series.objects.filter(notes__in=ids).distinct().order_by("slug")
    for slug in series.values_list("slug", flat=True):
        urls += feed_urls("series", slug=slug)
    tags = Tag.objects.filter(tagged_notes__content_object__in=ids).distinct().order_by("slug")
    for slug in tags.values_list("slug", flat=True):
        urls += feed_urls("tag", slug=slug)
    return urls
