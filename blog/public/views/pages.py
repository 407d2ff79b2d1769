"""CMS pages and robots.txt."""

from django.conf import settings
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils import translation
from django.views import generic
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from blog.models import Page
from blog.public.views.base import CachePolicyMixin, can_preview
from blog.text.site_url import absolute_url


class PageDetailView(CachePolicyMixin, generic.DetailView):
    """A published page; staff with the page permissions also see unpublished ones."""

    model = Page
    template_name = "blog/page_detail.html"
    context_object_name = "page"

    def get_object(self, queryset=None):
        slug = self.kwargs["slug"]
        page = Page.objects.published().filter(slug=slug).first()
        if page is not None:
            return page
        if can_preview(self.request.user, "page"):
            page = Page.objects.filter(slug=slug).first()
            if page is not None:
                self.private = True
                return page
        raise Http404("No published page here.")

    def get_context_data(self, **kwargs):
        return super().get_context_data(noindex=not self.object.is_published, **kwargs)


@require_GET
@cache_control(public=True, max_age=86400)
def robots_txt(request):
    """Crawlers may read everything public; not the admin and not share links. A custom admin path
    is not named: robots.txt is public."""
    lines = ["User-agent: *"]
    if settings.BIJI_ADMIN_PATH == "admin/":
        lines.append("Disallow: /admin/")
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            path = reverse("blog:note-share", kwargs={"slug": "SLUG", "token": "TOKEN"})
        lines.append("Disallow: " + path.replace("SLUG", "*").split("TOKEN")[0])
    lines += ["", f"Sitemap: {absolute_url(reverse('sitemap'))}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
