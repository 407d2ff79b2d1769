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


# The crawlers that gather text for language models, by the tokens their makers document:
# BIJI_ROBOTS_AI=disallow asks them to stay off. A reader's own assistant fetching a page the
# reader asked about (ChatGPT-User, Claude-User) reads for that reader and is not named.
AI_CRAWLERS = (
    "GPTBot", "OAI-SearchBot", "ClaudeBot", "Claude-SearchBot", "anthropic-ai",
    "Google-Extended", "Applebot-Extended", "CCBot", "PerplexityBot", "Bytespider",
    "Meta-ExternalAgent", "Amazonbot", "cohere-ai",
)  # fmt: skip


@require_GET
@cache_control(public=True, max_age=86400)
def robots_txt(request):
    """Crawlers may read everything public; not the admin and not share links. A custom admin path
    is not named: robots.txt is public. The crawlers of language models are asked to stay off the
    whole site with ``BIJI_ROBOTS_AI=disallow`` (the Markdown sources say what the pages say);
    otherwise llms.txt is named for them."""
    lines = ["User-agent: *"]
    if settings.BIJI_ADMIN_PATH == "admin/":
        lines.append("Disallow: /admin/")
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            path = reverse("blog:note-share", kwargs={"slug": "SLUG", "token": "TOKEN"})
        lines.append("Disallow: " + path.replace("SLUG", "*").split("TOKEN")[0])
    if settings.BIJI_ROBOTS_AI == "disallow":
        lines += ["", *(f"User-agent: {name}" for name in AI_CRAWLERS), "Disallow: /"]
    lines += ["", f"Sitemap: {absolute_url(reverse('sitemap'))}", ""]
    if settings.BIJI_LLMS_TXT and settings.BIJI_ROBOTS_AI == "allow":
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                lines.append(f"# llms.txt: {absolute_url(reverse('markdown:llms-txt'))}")
        lines.append("")
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
