"""Who the page cache steps aside for: a logged-in author, known by a cookie no stranger can make.

The page cache answers before sessions are read, so the admin keeps a second cookie in step
with the session (:func:`follow_session`): the session key's digest, signed and dated. Checking
it costs an HMAC, no query; a made-up session cookie gets the readers' page.
"""

import hashlib

from django.conf import settings
from django.core import signing

COOKIE = "biji_author"
SALT = "blog.caching.author"


def _admin_prefix():
    return "/" + settings.BIJI_ADMIN_PATH


def _digest(session_key):
    # The marker names the session without repeating its key in a second cookie.
    return hashlib.blake2b(session_key.encode(), digest_size=12).hexdigest()


def is_author(request) -> bool:
    """Whether the request carries a valid marker for the session cookie it carries."""
    if COOKIE not in request.COOKIES:
        return False
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    return bool(session_key) and _marked(request) == _digest(session_key)


def _marked(request):
    return request.get_signed_cookie(
        COOKIE, default=None, salt=SALT, max_age=settings.SESSION_COOKIE_AGE
    )


def signed_marker(session_key) -> str:
    """The marker's cookie value for ``session_key`` (what the login response sets)."""
    return signing.get_cookie_signer(salt=COOKIE + SALT).sign(_digest(session_key))


def follow_session(request, response):
    """On the admin's pages, set, replace or remove the marker as the session now stands."""
    if not request.path_info.startswith(_admin_prefix()) or not hasattr(request, "user"):
        return
    session = getattr(request, "session", None)
    session_key = session.session_key if session is not None else None
    if request.user.is_authenticated and session_key:
        if _marked(request) != _digest(session_key):
            browser_session = settings.SESSION_EXPIRE_AT_BROWSER_CLOSE
            response.set_cookie(
                COOKIE,
                signed_marker(session_key),
                max_age=None if browser_session else settings.SESSION_COOKIE_AGE,
                path=settings.SESSION_COOKIE_PATH,
                domain=settings.SESSION_COOKIE_DOMAIN,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite=settings.SESSION_COOKIE_SAMESITE,
            )
    elif COOKIE in request.COOKIES:
        response.delete_cookie(
            COOKIE,
            path=settings.SESSION_COOKIE_PATH,
            domain=settings.SESSION_COOKIE_DOMAIN,
            samesite=settings.SESSION_COOKIE_SAMESITE,
        )
