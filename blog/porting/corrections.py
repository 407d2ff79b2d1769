"""A note's corrections in its Markdown file: biji's own key ``corrections``, a list of ``{date,
text}`` oldest first, as readers saw them (blog.models.corrections). An imported correction has no
revision of this site; an import adds the corrections a note lacks and deletes none, so an
older file never takes back a correction readers were shown."""

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from blog.models import Correction
from blog.models.corrections import CORRECTION_MAX_LENGTH
from blog.porting.values import RecordError, as_datetime
from blog.porting.wording import worded

KEY = "corrections"


def exported(note):
    """The key's value: each correction's date (to the second, local, as export writes times)
    and text, oldest first; prefetched corrections are used as they are."""
    corrections = sorted(note.corrections.all(), key=lambda c: (c.made_at, c.pk))
    return [
        {"date": timezone.localtime(c.made_at).replace(microsecond=0), "text": c.text}
        for c in corrections
    ]


def read(value, line=None):
    """[(time, text)] from the key's value, oldest first; :class:`RecordError` at ``line``."""
    if value in (None, "", []):
        return []
    shape = _("%(key)s: a list of corrections, each with a date and a text")
    if not isinstance(value, list):
        raise RecordError(worded(shape, key=KEY), line)
    read_back = []
    for item in value:
        if not isinstance(item, dict) or "date" not in item or "text" not in item:
            raise RecordError(worded(shape, key=KEY), line)
        text = " ".join(str(item["text"] or "").split())  # one line, as the admin keeps it
        if not text:
            raise RecordError(worded(shape, key=KEY), line)
        if len(text) > CORRECTION_MAX_LENGTH:
            too_long = _("%(key)s: a correction longer than %(count)d characters")
            raise RecordError(worded(too_long, key=KEY, count=CORRECTION_MAX_LENGTH), line)
        try:
            made_at = as_datetime(item["date"], KEY)
        except RecordError as error:
            raise RecordError(error.args[0], line) from None
        if (made_at, text) not in read_back:
            read_back.append((made_at, text))
    return sorted(read_back)


def _key(made_at, text):
    return (made_at.replace(microsecond=0), text)


def stored(note):
    """The note's corrections as an import compares them: (time to the second, text)."""
    if note.pk is None:
        return frozenset()
    return frozenset(_key(c.made_at, c.text) for c in note.corrections.all())


def after_import(note, corrections):
    """What :func:`keep` leaves the note with: its own and the file's."""
    return stored(note) | {_key(made_at, text) for made_at, text in corrections or ()}


def keep(note, corrections):
    """Add the file's ``corrections`` that ``note`` lacks, with no revision."""
    have = stored(note)
    Correction.objects.bulk_create(
        Correction(note=note, made_at=made_at, text=text)
        for made_at, text in corrections
        if _key(made_at, text) not in have
    )
