"""Receivers that move the content version (:mod:`blog.caching.version`) after every change a
reader could see; :func:`connect` wires them (the app's ``ready()`` calls it).

Each is connected with its sender and only schedules the bump for after the commit (once per
transaction), so an aborted change moves nothing and a save waits for no extra query. Saving
or deleting the site settings or a navigation link also drops the settings' copy at the
current version at once (:mod:`blog.caching.settings_copy`).

``request_started``/``request_finished`` bound the per-request memo of the version.
"""

from django.apps import apps
from django.core.signals import request_finished, request_started
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save

from blog.caching import version
from blog.caching.settings_copy import forget_site_settings
from blog.models import NavigationLink, Note, Page, Series, SiteSettings, Tag, TaggedNote


def content_changed(sender, using, **kwargs):
    version.bump_after_commit(using)


def settings_changed(sender, using, **kwargs):
    forget_site_settings(using)
    version.bump_after_commit(using)


def note_tags_changed(sender, action, using, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"}:
        version.bump_after_commit(using)


def connect():
    post_migrate.connect(
        version.ensure_row_after_migrate,
        sender=apps.get_app_config("blog"),
        dispatch_uid="blog.content.row_after_migrate",
    )
    request_started.connect(version.start_request, dispatch_uid="blog.content.request_started")
    request_finished.connect(version.finish_request, dispatch_uid="blog.content.request_finished")
    for model, receiver in [
        *((model, content_changed) for model in (Note, Tag, TaggedNote, Series, Page)),
        *((model, settings_changed) for model in (SiteSettings, NavigationLink)),
    ]:
        for signal in (post_save, post_delete):
            signal.connect(
                receiver,
                sender=model,
                dispatch_uid=f"blog.content.{model._meta.model_name}.{signal is post_save}",
            )
    m2m_changed.connect(
        note_tags_changed, sender=Note.tags.through, dispatch_uid="blog.content.tags"
    )
