"""Tags, series and site settings, as imports find or create them.

Tags are found by either name; biji's data file restores tags and series by slug with both
names. Only a write that would change something asks for the user's permission
(:mod:`.authority`), so a biji export that matches the site needs none.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from blog.models import NavigationLink, Series, SiteSettings, Tag
from blog.porting.authority import NotPermitted
from blog.porting.wording import error_text, listed, not_imported, worded
from blog.text.cjk import has_cjk

SITE_FIELDS = ("title", "tagline_zh", "tagline_en", "author", "description", "footer")
NAVIGATION_FIELDS = ("position", "label_zh", "label_en", "url")
SITE_SETTINGS = pgettext_lazy("import report", "site settings")
NAVIGATION = pgettext_lazy("import report", "navigation")


def resolve_tags(names, names_zh, authority, report, source):
    """Tags by either name; ``names_zh`` (beside ``names``) completes a tag lacking its other
    name when no other tag has it. New tags come with the note; completing one is a change."""
    tags = []
    message = f"Imported from {source}"
    for index, name in enumerate(names):
        name_zh = names_zh[index] if index < len(names_zh) else ""
        tag = Tag.objects.find(name) or (Tag.objects.find(name_zh) if name_zh else None)
        created = tag is None
        if created:
            tag = Tag.objects.resolve([name])[0]
        changed = []
        if name_zh and not tag.name_zh and not Tag.objects.filter(name_zh=name_zh).exists():
            changed.append(("name_zh", name_zh))
        english = name if not has_cjk(name) else ""
        if english and not tag.name and not Tag.objects.filter(name__iexact=english).exists():
            changed.append(("name", english))
        if changed and not created and not authority.allows("change", Tag):
            not_set = _(
                "tag %(tag)s: its other name is not set: you may not change tags (needs "
                "blog.change_tag)"
            )
            report.warn(source, worded(not_set, tag=tag))  # named in the report's language
            changed = []
        for field, value in changed:
            setattr(tag, field, value)
            tag.save(update_fields=[field])
        if created or changed:
            authority.log(tag, created, message)
        if tag not in tags:
            tags.append(tag)
    return tags


def find_series(name):
    """The series with ``name`` as its slug or either title, or None."""
    return Series.objects.filter(Q(slug=name) | Q(title_en=name) | Q(title_zh=name)).first()


def new_series(title_zh, title_en=None):
    """A new series, one name being both titles; its slug from the English one, as the admin's."""
    title_en = title_en or title_zh
    return Series.objects.create(title_en=title_en, title_zh=title_zh)  # save() makes the slug


def store_site_data(data, authority, report):
    """Tags and series by slug, the site settings and navigation, from biji's data file, each
    skipped when not permitted; what was stored, worded when shown ("" for nothing)."""
    message = f"Imported from {data.source}"

    def attempt(work, *args):
        try:
            with transaction.atomic():
                work(*args, authority, message)
        except NotPermitted as error:
            report.error(data.source, not_imported(error_text(error)))
            return False
        except ValidationError as error:
            report.error(data.source, not_imported("; ".join(error.messages)))
            return False
        return True

    tags = [attempt(_store_tag, item) for item in data.tags]
    series = [attempt(_store_series, item) for item in data.series]
    parts = []
    if data.site:
        if attempt(_store_site, data.site):
            parts.append(SITE_SETTINGS)
        if data.navigation and attempt(_store_navigation, data.navigation):
            parts.append(NAVIGATION)
    if all(series):
        parts.append(pgettext_lazy("import report", "series"))
    if all(tags):
        parts.append(pgettext_lazy("import report", "tags"))
    return listed(parts)


def _store_tag(item, authority, message):
    tag = Tag.objects.filter(slug=item["slug"]).first()
    values = {"name": item["name"], "name_zh": item.get("name_zh") or ""}
    what = worded(_("tag %(slug)s"), slug=item["slug"])
    _store(Tag, tag, {"slug": item["slug"], **values}, values, what, authority, message,
           lambda tag: tag.full_clean(validate_unique=False))  # fmt: skip


def _store_series(item, authority, message):
    series = Series.objects.filter(slug=item["slug"]).first()
    values = {field: item.get(field) or "" for field in ("title_zh", "title_en", "description")}
    what = worded(_("series %(slug)s"), slug=item["slug"])
    _store(Series, series, {"slug": item["slug"]}, values, what, authority, message)


def _store_site(values, authority, message):
    site = SiteSettings.objects.filter(pk=1).first()
    values = {field: values[field] or "" for field in SITE_FIELDS if field in values}
    _store(SiteSettings, site, {"pk": 1}, values, SITE_SETTINGS, authority, message)


def _store(model, obj, identity, values, what, authority, message, clean=None):
    """Create ``model(**identity)`` or change ``obj`` to ``values``, if the user may; nothing
    (and no permission asked) when ``obj`` already holds them."""
    created = obj is None
    if not created and all(getattr(obj, field) == value for field, value in values.items()):
        return
    authority.check("add" if created else "change", model, what)
    obj = obj or model(**identity)
    for field, value in values.items():
        setattr(obj, field, value)
    if clean:
        clean(obj)
    obj.save()
    authority.log(obj, created, message)


def _store_navigation(links, authority, message):
    """The navigation replaced by ``links`` (as the settings page's inline replaces rows)."""
    site = SiteSettings.objects.filter(pk=1).first()
    if site is None:
        raise NotPermitted(_("navigation: the site settings it belongs to were not imported"))
    wanted = [
        {
            "position": link.get("position", position),
            **{field: link[field] for field in ("label_zh", "label_en", "url")},
        }
        for position, link in enumerate(links, start=1)
    ]
    current = [
        {field: getattr(link, field) for field in NAVIGATION_FIELDS}
        for link in site.navigation.all()
    ]
    if current == wanted:
        return
    authority.check("change", SiteSettings, NAVIGATION)
    authority.check("delete", NavigationLink, NAVIGATION)
    authority.check("add", NavigationLink, NAVIGATION)
    site.navigation.all().delete()
    for values in wanted:
        link = NavigationLink(site=site, **values)
        link.full_clean()  # its URL too: only links a reader can follow (http, https, mailto)
        link.save()
        authority.log(link, True, message)
    authority.log(site, False, f"Navigation replaced: {message}")
