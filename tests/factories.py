"""Small builders for test data. Each returns a saved object; keyword arguments override.

``note_form_data`` and ``page_form_data`` build the POST data of the admin's change forms.
"""

import itertools
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone

from blog.models import Language, Note, Page, Series, Status, Tag
from blog.models.revisions import version_of

_counter = itertools.count(1)


def make_tag(name="Scheduling", name_zh="调度", **kwargs):
    tag, _ = Tag.objects.get_or_create(name=name, defaults={"name_zh": name_zh, **kwargs})
    return tag


def make_series(title_en=None, title_zh=None, **kwargs):
    n = next(_counter)
    return Series.objects.create(
        title_en=title_en or f"Series {n}", title_zh=title_zh or f"系列 {n}", **kwargs
    )


def make_note(title=None, *, tags=(), published_ago=timedelta(days=1), **kwargs):
    """A published note (one day old unless told otherwise) with the given tags."""
    n = next(_counter)
    fields = {
        "title": title or f"笔记 {n}: GPU scheduling",
        "slug": kwargs.pop("slug", f"note-{n}"),
        "language": Language.CHINESE,
        "body": f"## 调度\n\nGPU 上的 kernel 调度, note {n}.\n",
        "status": Status.PUBLISHED,
        "published_at": timezone.now() - published_ago if published_ago is not None else None,
    }
    fields.update(kwargs)
    note = Note.objects.create(**fields)
    if tags:
        note.tags.add(*tags)
    return note


def make_draft(**kwargs):
    return make_note(status=Status.DRAFT, published_ago=None, **kwargs)


def make_scheduled(**kwargs):
    return make_note(published_ago=-timedelta(days=3), **kwargs)


def make_page(title="About", **kwargs):
    kwargs.setdefault("is_published", True)
    kwargs.setdefault("body", "关于我：I write about GPUs.")
    return Page.objects.create(title=title, **kwargs)


def author_with(*codenames, username="author2"):
    """A staff user (not a superuser) with only the permissions named (``add_note``…)."""
    user = get_user_model().objects.create_user(username=username, password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return get_user_model().objects.get(pk=user.pk)  # no cached permissions


def make_staff(username="author", password="correct horse battery staple"):
    return get_user_model().objects.create_superuser(
        username=username, email=f"{username}@example.com", password=password
    )


# What the admin's add form for a note sends when the author fills in only a title and a body.
NEW_NOTE_FORM = {
    "title": "Warp 调度笔记",
    "slug": "",
    "language": "zh-hans",
    "body": "## 调度\n\nGPU 的 warp scheduler 每个周期挑选一个 warp。",
    "summary": "",
    "tags": "",
    "status": "draft",
    "published_at_0": "",
    "published_at_1": "",
    "series": "",
    "series_position": "",
    "translation": "",
    "source_title": "",
    "source_author": "",
    "source_url": "",
    "source_date": "",
    "translator": "",
    "coauthors": "",
    "cover_alt": "",
    "marks_terms": "on",
    "edit_version": "",
}


def _tag_list(note):
    """The tags as the tag field holds them: comma-separated, a name with a space quoted."""
    names = sorted(tag.name or tag.name_zh for tag in note.tags.all())
    return ", ".join(f'"{name}"' if "," in name or " " in name else name for name in names)


def note_form_data(note=None, **changes):
    """The POST data of the admin's note form: the add form as a new note's author fills it
    (``NEW_NOTE_FORM``), or the change form of ``note`` as it stands in the database now,
    with its edit version (a form opened now). ``changes`` replace fields by their POST name
    (``published_at_0``/``_1`` for the date and time, ``cover`` for a file to upload). No
    ``cover`` is sent otherwise: the stored cover stays."""
    if note is None:
        return {**NEW_NOTE_FORM, **changes}
    note = Note.objects.get(pk=note.pk)
    published = timezone.localtime(note.published_at) if note.published_at else None
    data = {
        "title": note.title,
        "slug": note.slug,
        "language": note.language,
        "body": note.body,
        "summary": note.summary,
        "tags": _tag_list(note),
        "status": note.status,
        # With microseconds, so that saving the form leaves the time as it was.
        "published_at_0": published.strftime("%Y-%m-%d") if published else "",
        "published_at_1": published.strftime("%H:%M:%S.%f") if published else "",
        "series": note.series_id or "",
        "series_position": "" if note.series_position is None else note.series_position,
        "translation": note.translation_id or "",
        "source_title": note.source_title,
        "source_author": note.source_author,
        "source_url": note.source_url,
        "source_date": note.source_date.isoformat() if note.source_date else "",
        "translator": note.translator,
        "coauthors": note.coauthors,
        "cover_alt": note.cover_alt,
        "edit_version": version_of(note),
    }
    if note.marks_terms:  # a checkbox: posted only when ticked
        data["marks_terms"] = "on"
    return {**data, **changes}


def page_form_data(page=None, **changes):
    """The POST data of the admin's page form, like :func:`note_form_data`: the empty add
    form (the model's defaults) or ``page`` as stored now, with its edit version. An unticked
    ``is_published`` is left out, as a browser leaves it out."""
    page = Page() if page is None else Page.objects.get(pk=page.pk)
    data = {"title": page.title, "slug": page.slug, "language": page.language}
    if page.is_published:
        data["is_published"] = "on"
    data.update(body=page.body, edit_version=version_of(page))
    return {**data, **changes}
