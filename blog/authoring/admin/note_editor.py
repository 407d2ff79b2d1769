"""The editor's endpoints on the notes admin: the preview, a title's slug, a series position.
The pages' editor calls them too, so anyone who may write a note or a page may."""

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.clickjacking import xframe_options_sameorigin

from blog.authoring.series_positions import position_proposal_view
from blog.models import Language, Note
from blog.models.images import with_pictures
from blog.models.term_matching import mark_terms
from blog.rendering import RenderRefused, render_preview
from blog.text.bilingual import contents_title, html_lang
from blog.text.slugs import proposed_slug, unique_slug

# The preview frame is embedded by the admin's own pages, nowhere else.
FRAME_POLICY = settings.BIJI_CONTENT_SECURITY_POLICY.replace(
    "frame-ancestors 'none'", "frame-ancestors 'self'"
)


class EditorEndpointsMixin:
    """For :class:`.notes.NoteAdmin`, which mounts these views (``get_urls``)."""

    def _may_write(self, request):
        return any(
            request.user.has_perm(perm)
            for perm in ("blog.change_note", "blog.add_note", "blog.change_page")
        )

    @xframe_options_sameorigin
    def editor_frame(self, request):
        """The preview's page: the public stylesheet and scripts around an empty article."""
        if not self._may_write(request):
            return HttpResponse(status=403)
        language = request.GET.get("language") or Language.CHINESE
        response = TemplateResponse(
            request, "admin/blog/editor_frame.html", {"content_lang": html_lang(language)}
        )
        response["Content-Security-Policy"] = FRAME_POLICY
        add_never_cache_headers(response)
        return response

    def editor_preview(self, request):
        """The body as readers get it: the renderer that stores notes, the note's [TOC]
        title language included, and a note's glossary terms marked when its form says so."""
        if request.method != "POST" or not self._may_write(request):
            return HttpResponse(status=405 if request.method != "POST" else 403)
        language = request.POST.get("language") or Language.CHINESE
        if language not in Language.values:
            language = Language.CHINESE
        try:
            html = render_preview(request.POST.get("content", ""), contents_title(language))
        except RenderRefused as refusal:  # the editor shows why; the last preview stays
            response = JsonResponse({"error": str(refusal)}, status=422)
            add_never_cache_headers(response)
            return response
        if request.POST.get("marks_terms") == "1":
            html = mark_terms(html, language)[0].html
        html = with_pictures(html).html  # stored images as the page will show them
        response = HttpResponse(html)
        add_never_cache_headers(response)
        return response

    def slug_proposal(self, request):
        """The slug a new note with this title would get: short, ASCII, free."""
        if not self._may_write(request):
            return JsonResponse({}, status=403)
        slug = unique_slug(
            proposed_slug(request.GET.get("title", "")[:200]),
            lambda s: Note.objects.filter(slug=s).exists(),
        )
        response = JsonResponse({"slug": slug})
        add_never_cache_headers(response)
        return response

    def position_proposal(self, request):
        if not self._may_write(request):
            return JsonResponse({}, status=403)
        return position_proposal_view(request)
