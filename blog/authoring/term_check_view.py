"""The editor's "Term check" panel: the warnings of :mod:`.term_check` for the text being typed,
as JSON with the list as HTML, against the other note as saved. Nothing is stored, and no save
is ever refused.
"""

from django.contrib.admin.utils import unquote
from django.http import Http404, HttpResponseNotAllowed, JsonResponse
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext, ngettext

from blog.authoring.term_check import check_terms
from blog.models import Language
from blog.text.bilingual import html_lang


def term_check_view(model_admin, request, object_id):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    note = model_admin.get_object(request, unquote(object_id))
    if note is None:
        raise Http404
    if not model_admin.has_change_permission(request, note):
        return JsonResponse({}, status=403)
    language = request.POST.get("language")
    if language not in Language.values:
        language = note.language
    body = request.POST.get("body")
    if body is None:
        body = note.body
    other = note.counterpart
    warnings = check_terms(body, language, other.body, other.language) if other else []
    html = render_to_string(
        "admin/blog/note/term_warnings.html",
        warnings_context(warnings, language, other),
        request=request,
    )
    response = JsonResponse(
        {
            "count": len(warnings),
            "summary": summary(len(warnings), has_translation=other is not None),
            "warnings": [warning.as_dict(language) for warning in warnings],
            "html": html,
        }
    )
    add_never_cache_headers(response)
    return response


def summary(count, *, has_translation=True):
    """One line for the panel's status (read out when it changes)."""
    if not has_translation:
        return gettext("This note has no translation to check its terms against.")
    if not count:
        return gettext("No term warnings.")
    return ngettext("%(count)d term warning", "%(count)d term warnings", count) % {"count": count}


def warnings_context(warnings, language, other):
    return {
        "warnings": warnings,
        "has_translation": other is not None,
        "here_lang": html_lang(language),
        "other_lang": html_lang(other.language) if other is not None else "",
        "other": other,
    }
