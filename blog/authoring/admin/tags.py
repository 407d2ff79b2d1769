"""The tags admin: both names of each tag, and the tags still to be named in English."""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from blog.authoring.admin.filters import NeedsOtherNameFilter
from blog.models import Tag


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ["name_zh", "name", "slug", "usage"]
    list_display_links = ["name_zh", "name"]
    list_filter = [NeedsOtherNameFilter]
    search_fields = ["name", "name_zh", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    fields = ["name_zh", "name", "slug"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(usage=Count("tagged_notes"))

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        # Left empty, the slug comes from the English name, else the Chinese one's pinyin.
        form.base_fields["slug"].required = False
        form.base_fields["slug"].help_text = _(
            "ASCII, used in URLs. Left empty, it is made from the English name, or from the "
            "Chinese name's pinyin."
        )
        return form

    @admin.display(description=_("notes"), ordering="usage")
    def usage(self, tag):
        return tag.usage
