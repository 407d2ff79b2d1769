"""Secret share links: let someone read a draft or a scheduled note before it goes live.

A token signs the note's primary key *and* its ``updated_at``, so any edit of the note revokes
every link made before it; links also expire after ``settings.BIJI_PREVIEW_MAX_AGE`` seconds
(seven days by default). The token carries only the timestamp and the signature: the rest of
the signed value is rebuilt from the note itself, which keeps share URLs short.
"""

from django.conf import settings
from django.core import signing

SALT = "blog.preview.note"


def _signer():
    return signing.TimestampSigner(salt=SALT)


def _fingerprint(note):
    updated = note.updated_at.timestamp() if note.updated_at else 0
    return f"note.{note.pk}.{int(updated * 1_000_000)}"


def make_preview_token(note) -> str:
    """A token for :func:`check_preview_token`, valid until the note changes or it expires."""
    signed = _signer().sign(_fingerprint(note))
    return signed[len(_fingerprint(note)) + 1 :]  # "timestamp:signature"


def check_preview_token(note, token) -> bool:
    """True while ``token`` was made for this very version of ``note`` and has not expired."""
    if not token or len(token) > 200:
        return False
    try:
        _signer().unsign(f"{_fingerprint(note)}:{token}", max_age=settings.BIJI_PREVIEW_MAX_AGE)
    except signing.BadSignature:  # also SignatureExpired
        return False
    return True

