"""An author's admin pages in the browser tests: a logged-in session made without the login
form (nothing for login throttling), and pages opened with it in the admin's language.

A test module wires them into its fixtures::

    @pytest.fixture(scope="module")
    def author_cookie(demo):
        return author_session_cookie(demo)

    @pytest.fixture
    def author_page(open_page, author_cookie):
        return partial(open_as_author, open_page, author_cookie)
"""

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore

ACCEPT_LANGUAGE = {"zh-hans": ("zh-CN", "zh-Hans"), "en": ("en-US", "en")}


def author_session_cookie(demo):
    """The session cookie of a superuser logged in on the ``demo`` server."""
    user, _ = get_user_model().objects.get_or_create(
        username="browser-author", defaults={"is_staff": True, "is_superuser": True}
    )
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return {"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": demo.url}


def open_as_author(open_page, cookie, language="zh-hans", **options):
    """A page (``open_page``'s) logged in with ``cookie``, the admin in ``language``."""
    locale, header = ACCEPT_LANGUAGE[language]
    options.setdefault("locale", locale)
    options.setdefault("extra_http_headers", {"Accept-Language": header})
    page = open_page(**options)
    page.context.add_cookies([cookie])
    return page
