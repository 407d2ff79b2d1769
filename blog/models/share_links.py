"""Secret share links to drafts: the token signs the note's pk and ``updated_at``, so an edit
revokes it; it expires after ``BIJI_PREVIEW_MAX_AGE``."""

import time

from django.conf import settings
from django.core import signing

# The salt links were first signed under: links already sent out keep working.
SALT = "blog.preview.note"
CLOCK_SKEW = 60  # seconds a token's timestamp may be ahead of this server's clock


def _signer():
    return signing.TimestampSigner(salt=SALT)


def _fingerprint(note):
    updated = note.updated_at.timestamp() if note.updated_at else 0
    return f"note.{note.pk}.{int(updated * 1_000_000)}"


def make_share_token(note) -> str:
    """A token for :func:`check_share_token`, valid until the note changes or it expires."""
    signed = _signer().sign(_fingerprint(note))
    return signed[len(_fingerprint(note)) + 1 :]  # "timestamp:signature"


def check_share_token(note, token) -> bool:
    """True while ``token`` was made for this very version of ``note`` and has not expired."""
    if not token or len(token) > 200:
        return False
    signer = _signer()
    try:
        # The signature first: the timestamp is trusted only once it is known to be ours.
        signer.unsign(f"{_fingerprint(note)}:{token}")
        signed_at = signing.b62_decode(token.split(signer.sep, 1)[0])
    except (signing.BadSignature, ValueError):
        return False
    age = time.time() - signed_at
    return -CLOCK_SKEW <= age <= settings.BIJI_PREVIEW_MAX_AGE
