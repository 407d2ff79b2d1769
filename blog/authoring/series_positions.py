"""The position the note form proposes for a note in a series: its own, when stored there
already; else its translation's, when free in the note's language (a pair holds one position,
"part 2" in both); else the place after the last part. The proposal names the notes not out yet
that hold positions, since readers see those numbers missing.
"""

from django.db.models import Max
from django.http import JsonResponse
from django.utils import formats, timezone
from django.utils.cache import add_never_cache_headers
from django.utils.text import format_lazy
from django.utils.translation import gettext as _

from blog.models import Language, Note, Series


def proposed_position(series_id, language, note=None, translation=None):
    """The position to propose for ``note`` in ``series_id`` and ``language``, next to
    ``translation``; None without a series."""
    if not series_id:
        return None
    note_pk = note.pk if note is not None else None
    if note_pk is not None:
        stored = Note.objects.filter(pk=note_pk).values_list("series_id", "series_position")
        place = stored.first()
        if place and place[0] == int(series_id) and place[1] is not None:
            return place[1]
    others = Note.objects.filter(series_id=series_id, language=language)
    if note_pk is not None:
        others = others.exclude(pk=note_pk)
    if (
        translation is not None
        and translation.series_id == int(series_id)
        and translation.series_position is not None
        and not others.filter(series_position=translation.series_position).exists()
    ):
        return translation.series_position
    last = others.aggregate(last=Max("series_position"))["last"]
    return (last or 0) + 1


def held_positions(series_id, language, note=None):
    """A sentence naming the notes of ``series_id`` in ``language`` that hold a position but are not
    out yet, or ""."""
    if not series_id:
        return ""
    holders = (
        Note.objects.filter(series_id=series_id, language=language, series_position__isnull=False)
        .exclude(pk__in=Note.objects.published().values("pk"))
        .order_by("series_position")
        .only("title", "series_position", "status", "published_at")
    )
    if note is not None and note.pk is not None:
        holders = holders.exclude(pk=note.pk)
    held = [_held(holder) for holder in holders[:10]]
    if not held:
        return ""
    return format_lazy(
        _("Not out yet, so readers see these numbers missing: {held}."),
        held=_("; ").join(held),
    )


def _held(note):
    if note.published_at is not None and note.published_at > timezone.now():
        when = formats.date_format(timezone.localtime(note.published_at), "SHORT_DATETIME_FORMAT")
        state = _("scheduled for %(when)s") % {"when": when}
    else:
        state = _("a draft")
    return _("%(position)s is held by “%(title)s”, %(state)s") % {
        "position": note.series_position,
        "title": note.title,
        "state": state,
    }


def position_proposal_view(request):
    """``{"position": n}`` for ``?series=&language=&note=&translation=``; anything else is ignored
    rather than refused: the answer is only a proposal."""
    language = request.GET.get("language")
    if language not in Language.values:
        language = Language.CHINESE
    note = _note_named(request, "note")
    translation = _note_named(request, "translation")
    if translation is None and note is not None:
        translation = note.linked_translation()
    series = request.GET.get("series", "")
    if not (series.isdigit() and Series.objects.filter(pk=series).exists()):
        series = None
    response = JsonResponse(
        {
            "position": proposed_position(series, language, note, translation),
            "held": str(held_positions(series, language, note)),
        }
    )
    add_never_cache_headers(response)
    return response


def _note_named(request, parameter):
    value = request.GET.get(parameter, "")
    return Note.objects.filter(pk=value).first() if value.isdigit() else None
