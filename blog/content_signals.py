"""Receivers that move the content version (blog.content_version) after every public change.

Each is connected with its sender and only schedules the bump for after the commit (once per
transaction), so an aborted change moves nothing and a save waits for no extra query. Saving
or deleting the site settings or a navigation link also drops the settings' cached copy at
the current version at once, so code reading them again in the same transaction (and the
tests, whose transactions never commit) sees the change.

``request_started``/``request_finished`` bound the per-request memo of the version.
"""

from django.apps import apps
from django.core.signals import request_finished, request_started
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save

from . import content_version
from .models import NavigationLink, Note, Page, Series, SiteSettings, Tag, TaggedNote

post_migrate.connect(
    content_version.ensure_row_after_migrate,
    sender=apps.get_app_config("blog"),
    dispatch_uid="blog.content.row_after_migrate",
)
request_started.connect(content_version.start_request, dispatch_uid="blog.content.request_started")
request_finished.connect(
    content_version.finish_request, dispatch_uid="blog.content.request_finished"
)


def content_changed(sender, using, **kwargs):
    content_version.bump_after_commit(using)


def settings_changed(sender, using, **kwargs):
    SiteSettings.forget_cached(using)
    content_version.bump_after_commit(using)


def note_tags_changed(sender, action, using, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"}:
        content_version.bump_after_commit(using)


for model in (Note, Tag, TaggedNote, Series, Page):
    for signal in (post_save, post_delete):
        signal.connect(
            content_changed,
            sender=model,
            dispatch_uid=f"blog.content.{model._meta.model_name}.{signal is post_save}",
        )
for model in (SiteSettings, NavigationLink):
    for signal in (post_save, post_delete):
        signal.connect(
            settings_changed,
            sender=model,
            dispatch_uid=f"blog.content.{model._meta.model_name}.{signal is post_save}",
        )
m2m_changed.connect(note_tags_changed, sender=Note.tags.through, dispatch_uid="blog.content.tags")
