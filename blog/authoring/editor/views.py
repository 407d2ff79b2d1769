"""The Markdown editor's image upload, for staff only: django-markdownx's own view is open to
anyone. Every answer is JSON that editor.js shows: a refused file is 400, an image the server
could not write 507 Insufficient Storage (a full disk) or 503 (a media store that does not
answer), never a 500 page.
"""

import re
from functools import wraps
from pathlib import PurePath

from django.http import JsonResponse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from blog.images.uploads import NotStored, RejectedImage, store_image

AUTHOR_PERMISSIONS = ("blog.add_note", "blog.change_note", "blog.change_page")


def author_required(view):
    """Active staff who may write notes or pages; everyone else gets 403, never the view."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        user = request.user
        if not (user.is_active and user.is_staff and any(map(user.has_perm, AUTHOR_PERMISSIONS))):
            return JsonResponse({"error": _("Log in as an author to use the editor.")}, status=403)
        response = view(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

    return wrapper


def _alt_text(filename):
    # The file name's stem, minus characters that would end Markdown's ![alt] early.
    return re.sub(r"[\[\]\(\)\\!`*_<>]", " ", PurePath(filename or "").stem).strip()[:100]


@require_POST
@author_required
def upload(request):
    uploaded = request.FILES.get("image")
    if uploaded is None:
        return JsonResponse({"image": [_("Choose an image to upload.")]}, status=400)
    try:
        stored = store_image(uploaded)
    except RejectedImage as error:
        return JsonResponse({"image": [str(error)]}, status=400)
    except NotStored as error:
        return JsonResponse({"image": [str(error)]}, status=error.status)
    return JsonResponse(
        {
            "image_code": f"![{_alt_text(uploaded.name)}]({stored.url})",
            "url": stored.url,
            "width": stored.width,
            "height": stored.height,
        }
    )
