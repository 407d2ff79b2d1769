"""Small builders for test data. Each returns a saved object; keyword arguments override."""

import itertools
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from blog.models import Language, Note, Page, Series, Status, Tag

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


def make_staff(username="author", password="correct horse battery staple"):
    return get_user_model().objects.create_superuser(
        username=username, email=f"{username}@example.com", password=password
    )
