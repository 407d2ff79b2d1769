"""The pages admin: a page is written like a note, in the same editor, with revisions."""

from django.contrib import admin

from blog.authoring.admin.desk import MARKDOWN_EDITOR, AuthorDeskMedia
from blog.authoring.forms import PageForm
from blog.authoring.history import RevisionAdminMixin
from blog.authoring.render_ahead import RendersAheadAdminMixin
from blog.models import Page


@admin.register(Page)
class PageAdmin(RendersAheadAdminMixin, RevisionAdminMixin, admin.ModelAdmin):
    form = PageForm
    formfield_overrides = MARKDOWN_EDITOR
    Media = AuthorDeskMedia
    list_display = ["title", "slug", "language", "is_published", "updated_at"]
    list_filter = ["is_published", "language"]
    search_fields = ["title", "body"]
    fields = ["title", "slug", "language", "is_published", "body", "edit_version"]
