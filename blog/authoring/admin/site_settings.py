"""The site settings' admin: the one row of settings, with the navigation's links."""

from django.contrib import admin
from django.shortcuts import redirect

from blog.authoring.admin.desk import HTTPS_URLS
from blog.authoring.render_ahead import RendersAheadAdminMixin
from blog.models import NavigationLink, SiteSettings


class NavigationLinkInline(admin.TabularInline):
    model = NavigationLink
    extra = 1
    fields = ["position", "label_zh", "label_en", "url"]


@admin.register(SiteSettings)
class SiteSettingsAdmin(RendersAheadAdminMixin, admin.ModelAdmin):
    """One row: the list page goes straight to it; it can be neither added nor deleted."""

    inlines = [NavigationLinkInline]
    fields = [
        "title", "tagline_zh", "tagline_en", "author", "description", "footer",
        "licence", "licence_url",
    ]  # fmt: skip
    formfield_overrides = HTTPS_URLS  # the licence's address

    def has_add_permission(self, request):
        return not SiteSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        site = SiteSettings.objects.first()
        if site is None:
            return redirect("admin:blog_sitesettings_add")
        return redirect("admin:blog_sitesettings_change", site.pk)
