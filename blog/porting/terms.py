"""Tags, series and site settings, as imports find or create them.

Tags are found by either name (:meth:`blog.models.Tag.objects.find`), so ``Scheduling`` and
``调度`` reach the same tag; biji's data file (written by :mod:`.export`) restores tags and
series by slug with both names, which is what makes the round trip exact.
"""

from django.db.models import Q

from blog.models import Series, SiteSettings, Tag
from blog.text.cjk import has_cjk
from blog.text.slugs import ascii_slug

SITE_FIELDS = ("title", "tagline_zh", "tagline_en", "author", "description", "footer")


def resolve_tags(names, names_zh):
    """Tags by either name; ``names_zh`` (beside ``names``, in the same order) completes a
    tag that lacks its name in the other language, when no other tag has it."""
    tags = []
    for index, name in enumerate(names):
        name_zh = names_zh[index] if index < len(names_zh) else ""
        tag = Tag.objects.find(name) or (Tag.objects.find(name_zh) if name_zh else None)
        if tag is None:
            tag = Tag.objects.resolve([name])[0]
        if name_zh and not tag.name_zh and not Tag.objects.filter(name_zh=name_zh).exists():
            tag.name_zh = name_zh
            tag.save(update_fields=["name_zh"])
        english = name if not has_cjk(name) else ""
        if english and not tag.name and not Tag.objects.filter(name__iexact=english).exists():
            tag.name = english
            tag.save(update_fields=["name"])
        if tag not in tags:
            tags.append(tag)
    return tags


def find_or_create_series(name):
    """(series, created): by slug or either title; a new one has ``name`` as both titles."""
    series = Series.objects.filter(Q(slug=name) | Q(title_en=name) | Q(title_zh=name)).first()
    if series is not None:
        return series, False
    return Series.objects.create(title_en=name, title_zh=name, slug=ascii_slug(name) or ""), True


def store_site_data(data):
    """Tags and series by slug, the site settings and navigation, from biji's data file."""
    for item in data.tags:
        tag = Tag.objects.filter(slug=item["slug"]).first() or Tag(slug=item["slug"])
        tag.name, tag.name_zh = item["name"], item.get("name_zh") or ""
        tag.full_clean(validate_unique=False)
        tag.save()
    for item in data.series:
        series = Series.objects.filter(slug=item["slug"]).first() or Series(slug=item["slug"])
        for field in ("title_zh", "title_en", "description"):
            setattr(series, field, item.get(field) or "")
        series.save()
    if data.site:
        site = SiteSettings.objects.filter(pk=1).first() or SiteSettings(pk=1)
        for field in SITE_FIELDS:
            if field in data.site:
                setattr(site, field, data.site[field] or "")
        site.save()
        if data.navigation:
            site.navigation.all().delete()
            for position, link in enumerate(data.navigation, start=1):
                site.navigation.create(
                    position=link.get("position", position),
                    label_zh=link["label_zh"], label_en=link["label_en"], url=link["url"],
                )  # fmt: skip
