"""Who the page cache steps aside for: a logged-in author, known by a cookie no stranger can make.

The page cache (:mod:`blog.caching.pages`) serves readers before sessions are read. It used to
step aside for any request carrying a session cookie, so ``Cookie: sessionid=x`` made every
page render from scratch (``/feed/``: 1,118 → 37 requests/s). Checking the session instead
would cost a database query per request, whatever the cookie says.

So the author's browser carries a second cookie, the **marker**: the session key's digest,
signed with ``SECRET_KEY`` and dated (Django's signed cookies). Without ``SECRET_KEY`` nobody can
make one, and one made for another session does not match; checking it costs an HMAC, no
query. The admin's pages keep it in step with the session (:func:`follow_session`): they read
the user anyway, so the marker is set by the response that logs the author in (the session key
is new then), replaced when the key changes (a password change) and removed at logout or when
the session is gone. A session without a valid marker is a reader's: served from the cache,
and stored only when the response is everyone's page (``storable``: public, no ``Vary:
Cookie``, no cookie set), so nothing made for the author reaches readers.
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
