"""biji settings: one file, driven by environment variables.

Every value a deployment changes is read once from the environment below, with defaults that
suit a laptop: DEBUG off, SQLite in ``var/``, a local-memory cache. The README lists each
variable. Tests adjust settings through pytest-django's ``settings`` fixture.
"""

import os
import re
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.email_url import email_settings, mail_domain

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


def env(name, default=""):
    return os.environ.get(name, default).strip()


def env_bool(name, default=False):
    value = env(name)
    if not value:
        return default
    return value.lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def create_private_file(path):
    """Create ``path`` empty with mode 600 (owner only) unless it exists; make its folder 700.

    Used for the SQLite database and the development key before anything else writes them,
    so they are never readable by other users, whatever the umask.
    """
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


DEBUG = env_bool("DJANGO_DEBUG")

# The key `make setup` (and so `make run`) keeps for this checkout: random, mode 600, ignored
# by git. Reading it here lets `manage.py backup` and friends run in that checkout as they are.
SECRET_KEY_FILE = VAR_DIR / "secret-key"


def _secret_key():
    """DJANGO_SECRET_KEY, else var/secret-key, else (DEBUG only) a development key.

    Never made up in production: without either, biji refuses to start with one line saying
    how to give it a key (the message is the whole of what manage.py prints).
    """
    key = env("DJANGO_SECRET_KEY")
    if key:
        return key
    if SECRET_KEY_FILE.exists():
        try:
            key = SECRET_KEY_FILE.read_text().strip()
        except OSError as error:
            raise ImproperlyConfigured(
                f"cannot read the secret key in {SECRET_KEY_FILE} ({error.strerror}): run biji "
                "as the user who owns it, or set DJANGO_SECRET_KEY."
            ) from None
        if not key:
            raise ImproperlyConfigured(
                f"{SECRET_KEY_FILE} is empty: delete it and run `make setup` to make a new "
                "key, or set DJANGO_SECRET_KEY."
            )
        return key
    if not DEBUG:
        raise ImproperlyConfigured(
            f"no secret key: run `make setup` in {BASE_DIR} (it keeps a random key in "
            "var/secret-key), or set DJANGO_SECRET_KEY to a long random string, e.g. the "
            "output of: python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    # Development only: a random key kept in an ignored file, so sessions survive restarts.
    key_file = VAR_DIR / "dev-secret-key"
    if not key_file.exists() or not key_file.read_text().strip():
        create_private_file(key_file)
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
SITE_URL = env("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS") or (
    [SITE_URL] if SITE_URL.startswith("https://") else []
)

INSTALLED_APPS = [
    "django.contrib.admin",
    # django-axes (login throttling) under a name the admin can translate (authoring/axes_app.py).
    "blog.authoring.axes_app.AxesConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles, so runserver serves static files the way production does.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "taggit",
    "markdownx",
    "reversion",
    # Before django_tasks_db: biji's db_worker command (with retries and the sweep) replaces
    # the library's.
    "blog",
    "django_tasks",
    "django_tasks_db",
    # Email through a provider's API, and its bounce and complaint webhooks (blog.mail).
    "anymail",
]

MIDDLEWARE = [
    # First: /healthz for load balancers, answered before ALLOWED_HOSTS (they probe by IP
    # address), the HTTPS redirect and the page cache (blog.ops.healthz).
    "blog.ops.healthz.HealthzMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "blog.public.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Locale before sessions, and from the URL alone (/ Chinese, /en/ English): public pages
    # vary neither on cookies nor on Accept-Language, so a cache can keep them.
    "blog.public.middleware.URLLocaleMiddleware",
    # Public pages and feeds for anonymous readers: 304 from the content version before any
    # view runs, then the shared page cache (blog.caching.pages); gzip inside it, so the cache
    # keeps compressed pages. Before sessions: a cached page reads no session.
    "blog.caching.pages.PageCacheMiddleware",
    "blog.caching.pages.PublicGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Old URLs of imported posts redirect to their notes; it acts on 404 responses only.
    "blog.public.legacy_redirects.LegacyRedirectMiddleware",
    # Last: turns a locked-out login into biji's 429 page (blog.authoring.login.login_locked_out).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "blog.public.context_processors.site",
            ],
        },
    },
]

# SQLite in var/ unless DATABASE_URL names another database (postgres://… selects PostgreSQL).
# Connections are kept between requests: opening one per request costs peers 20-50% req/s.
DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(env("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _db_name = str(DATABASES["default"]["NAME"])
    if _db_name and _db_name != ":memory:" and not _db_name.startswith("file:"):
        # Created here, owner-only, before SQLite would create it with the umask's mode; its
        # -wal and -shm files take the database file's mode.
        create_private_file(_db_name)
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets readers and the one writer work at the same time.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        # Writers queue for the lock instead of failing after the default 5 s (SQLite's busy
        # timeout; BIJI_SQLITE_TIMEOUT shortens it for the tests that hold the lock past it).
        "timeout": float(env("BIJI_SQLITE_TIMEOUT", "20")),
    }

# No JIT compilation on PostgreSQL: it pays off for long analytic queries, never for a page's;
# a search of a common word was estimated costly enough to compile, 40-260 ms more than it ran
# (docs/performance.md). A connection that cannot be made fails after 5 s, not the minutes of
# the system's TCP timeout (a request, a worker's heartbeat and /healthz wait that long at
# most). A DATABASE_URL with options of its own (?options=…, ?connect_timeout=…) is kept.
POSTGRESQL_OPTIONS = {"options": "-c jit=off", "connect_timeout": 5}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    for _key, _value in POSTGRESQL_OPTIONS.items():
        DATABASES["default"].setdefault("OPTIONS", {}).setdefault(_key, _value)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", "biji"),
            # A stopped or unreachable server costs a quarter of a second, then blog.caching.store
            # treats it as a miss: pages come from the database.
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
        }
    }
else:
    # The embedded default: each worker's own memory, large enough to hold the whole site
    # (Django's default of 300 entries held a few pages: a blog of a few hundred notes was
    # culled all the time and rendered on every request). Per worker, not shared: a shared
    # file or database cache costs 200-340 us a read on this machine (docs/performance.md),
    # as much as a whole hit here. BIJI_CACHE_MAX_ENTRIES bounds it: an entry is a page (5-30
    # KB), a list entry or a count, so 20,000 is at most ~200 MB a worker, enough for ~5,000
    # notes in both languages.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": int(env("BIJI_CACHE_MAX_ENTRIES", "20000"))},
        }
    }

# Login throttling (django-axes): after BIJI_LOGIN_FAILURE_LIMIT wrong passwords for one user
# name from one address, that pair is refused (429, even with the right password) for
# BIJI_LOGIN_COOLOFF_MINUTES, counted again from each attempt made while locked. Attempts are
# kept in the database, so every worker sees them. `manage.py axes_reset_username NAME`,
# `axes_reset_ip ADDRESS` or `axes_reset` unlock at once. The client address is REMOTE_ADDR,
# or behind proxies (DJANGO_BEHIND_PROXY) the one BIJI_TRUSTED_PROXIES entries from the right of
# X-Forwarded-For.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out pair before checking
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(env("BIJI_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(env("BIJI_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "blog.authoring.login.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "blog.authoring.login.client_ip"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "blog" / "locale"]
TIME_ZONE = env("TIME_ZONE", "Asia/Singapore")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env("MEDIA_ROOT") or BASE_DIR / "media")
STORAGES = {
    # Django's file system storage, writing whole files or none (a full disk leaves nothing).
    "default": {"BACKEND": "blog.images.storage.WholeFileStorage"},
    # WhiteNoise's compressed manifest storage, biji's own scripts minified first.
    "staticfiles": {"BACKEND": "blog.public.static_storage.MinifiedManifestStorage"},
}
# Media on an object store (AWS S3, Cloudflare R2, MinIO, any S3 API) instead of MEDIA_ROOT:
# MEDIA_S3_BUCKET turns it on (docs/deployment.md). Credentials are boto3's own
# (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, or an instance role); unsigned URLs, no
# overwrites and the client's timeouts are fixed in blog/images/object_storage.py.
MEDIA_S3_BUCKET = env("MEDIA_S3_BUCKET")
if MEDIA_S3_BUCKET:
    STORAGES["default"] = {
        "BACKEND": "blog.images.object_storage.ObjectStorage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            "endpoint_url": env("MEDIA_S3_ENDPOINT_URL") or None,  # AWS S3 without it
            "region_name": env("MEDIA_S3_REGION") or None,
            # The CDN domain media URLs use (media.example.com), else the store's own.
            "custom_domain": env("MEDIA_S3_CUSTOM_DOMAIN") or None,
            "location": env("MEDIA_S3_LOCATION").strip("/"),  # a key prefix: blog/
        },
    }
# `manage.py publish_site DIR --to s3://bucket/prefix`: the static copy's store, by default the
# media store's endpoint and region (the site's bucket is usually beside the media's), with
# boto3's credentials; the bucket comes from --to (blog/ops/static_site/publish.py).
BIJI_PUBLISH_S3_ENDPOINT_URL = env("BIJI_PUBLISH_S3_ENDPOINT_URL") or env("MEDIA_S3_ENDPOINT_URL")
BIJI_PUBLISH_S3_REGION = env("BIJI_PUBLISH_S3_REGION") or env("MEDIA_S3_REGION")
# Fingerprinted static files never change: let browsers and CDNs keep them for a year.
WHITENOISE_MAX_AGE = 31536000

# Security headers; HTTPS-only settings follow SITE_URL's scheme.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# One constant policy (blog.public.middleware sets it on every response): biji's pages carry no
# inline script, so scripts come from 'self' only. Inline style attributes are allowed for the
# Django admin, which still uses a few.
BIJI_CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: https:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SESSION_COOKIE_HTTPONLY = True
_HTTPS = SITE_URL.startswith("https://")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _HTTPS
SECURE_SSL_REDIRECT = _HTTPS and env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(env("DJANGO_HSTS_SECONDS", "31536000" if _HTTPS else "0"))
# Both commit every subdomain (and, preloaded, every browser for months) to HTTPS: only when
# the operator says so. Off, check --deploy's reminders about them are silenced on purpose.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD")
SILENCED_SYSTEM_CHECKS = [
    *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
    *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
]
BIJI_BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY")
if BIJI_BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# How many reverse proxies in front of biji append to X-Forwarded-For (nginx alone: 1; a CDN
# before nginx: 2): the login lockout counts the address that many entries from the right
# (blog.authoring.login.client_ip); anything further left is the client's to choose.
_trusted_proxies = env("BIJI_TRUSTED_PROXIES", "1")
if not re.fullmatch(r"[0-9]{1,3}", _trusted_proxies) or int(_trusted_proxies) < 1:
    raise ImproperlyConfigured(
        f"BIJI_TRUSTED_PROXIES={_trusted_proxies!r}: the number of reverse proxies in front of "
        "biji that append to X-Forwarded-For, a whole number of 1 or more."
    )
BIJI_TRUSTED_PROXIES = int(_trusted_proxies)


# First path segments the site itself answers (config/urls.py, blog/public/urls.py, feed_urls.py).
_SITE_PATHS = {"en", "static", "media", "i18n", "notes", "tags", "series", "archive", "search"}
_SITE_PATHS |= {"pages", "feed", "lang", "sitemap.xml", "robots.txt", "healthz"}
_SITE_PATHS |= {"llms.txt", "llms-full.txt"}
_SITE_PATHS |= {".well-known", "nodeinfo", "ap"}  # the fediverse (BIJI_FEDIVERSE)


def _admin_path():
    path = env("BIJI_ADMIN_PATH", "admin").strip("/")
    segments = path.split("/")
    if (
        not re.fullmatch(r"[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*", path)
        or {".", ".."} & set(segments)
        or segments[0] in _SITE_PATHS
    ):
        raise ImproperlyConfigured(
            f"BIJI_ADMIN_PATH={path!r}: use letters, digits, '-', '_', '.', '~' and '/', no "
            f"'.' or '..' segment, and not a path the site uses ({', '.join(sorted(_SITE_PATHS))})."
        )
    return path + "/"


# The admin's address, "admin/" by default (also holds the editor's endpoints, "editor/").
BIJI_ADMIN_PATH = _admin_path()

# django-markdownx: only its model field and widget are used, never its script or views. The
# widget renders this path on the textarea, and editor.js posts images to it: biji's own
# staff-only view (blog/authoring/editor/views.py), which verifies uploads with Pillow. The live
# preview posts to the admin (NoteAdmin.editor_preview).
MARKDOWNX_UPLOAD_URLS_PATH = f"/{BIJI_ADMIN_PATH}editor/upload/"
BIJI_UPLOAD_MAX_BYTES = int(env("BIJI_UPLOAD_MAX_BYTES", str(5 * 1024 * 1024)))
# Checked from the header before decoding (blog/images/uploads.py): one frame's pixels, the number
# of frames, and pixels over all frames (what decoding an animation costs).
BIJI_UPLOAD_MAX_PIXELS = int(env("BIJI_UPLOAD_MAX_PIXELS", "40000000"))
BIJI_UPLOAD_MAX_FRAMES = int(env("BIJI_UPLOAD_MAX_FRAMES", "100"))
BIJI_UPLOAD_MAX_TOTAL_PIXELS = int(env("BIJI_UPLOAD_MAX_TOTAL_PIXELS", "50000000"))
DATA_UPLOAD_MAX_MEMORY_SIZE = BIJI_UPLOAD_MAX_BYTES + 1024 * 1024

TAGGIT_CASE_INSENSITIVE = True

# Every render of Markdown runs in a child process held to these bounds (blog/rendering/budget.py):
# CPU seconds, wall seconds (a machine too busy to give it its CPU time), and memory beyond the
# parent's. A text past one is refused with a message; texts are at most 1 MB.
BIJI_RENDER_SECONDS = float(env("BIJI_RENDER_SECONDS", "3"))
BIJI_RENDER_WALL_SECONDS = float(env("BIJI_RENDER_WALL_SECONDS", "10"))
BIJI_RENDER_MEMORY_MB = int(env("BIJI_RENDER_MEMORY_MB", "512"))

# A search's statements stop after this many seconds (blog/search/deadline.py): the page then
# says the search took too long. Common searches take milliseconds (docs/performance.md).
BIJI_SEARCH_SECONDS = float(env("BIJI_SEARCH_SECONDS", "2"))

# Share links to drafts expire after this many seconds (and at any edit of the note).
BIJI_PREVIEW_MAX_AGE = int(env("BIJI_PREVIEW_MAX_AGE", str(7 * 86400)))

# Email subscriptions (blog.mail.subscribing, blog.public.views.subscribe): the form answers
# 429 after BIJI_SUBSCRIBE_IP_LIMIT requests from one client (an IPv4 address or an IPv6 /64,
# found as for the login lockout) within BIJI_SUBSCRIBE_IP_WINDOW seconds, or after
# BIJI_SUBSCRIBE_ADDRESS_LIMIT requests for one email address within
# BIJI_SUBSCRIBE_ADDRESS_WINDOW seconds. Counted in the cache: per worker process without
# REDIS_URL, not at all while the cache is down. Whatever the counts, an address receives at
# most one confirmation a day (kept in the database). Confirmation links work for
# BIJI_CONFIRM_MAX_AGE seconds.
BIJI_SUBSCRIBE_IP_LIMIT = int(env("BIJI_SUBSCRIBE_IP_LIMIT", "5"))
BIJI_SUBSCRIBE_IP_WINDOW = int(env("BIJI_SUBSCRIBE_IP_WINDOW", "600"))
BIJI_SUBSCRIBE_ADDRESS_LIMIT = int(env("BIJI_SUBSCRIBE_ADDRESS_LIMIT", "3"))
BIJI_SUBSCRIBE_ADDRESS_WINDOW = int(env("BIJI_SUBSCRIBE_ADDRESS_WINDOW", "86400"))
BIJI_CONFIRM_MAX_AGE = int(env("BIJI_CONFIRM_MAX_AGE", str(3 * 86400)))
# The static copy (manage.py build_site, blog/ops/static_site/page_files.py) has no server to post
# to: its subscription forms post to BIJI_STATIC_SUBSCRIBE_URL (a running biji's
# https://admin.example.com/subscribe/, which takes posts from any origin), or are left out.
BIJI_STATIC_SUBSCRIBE_URL = env("BIJI_STATIC_SUBSCRIBE_URL")

# An edge cache in front of biji (blog.caching.edge, docs/deployment.md): every public page names
# the parts it shows in Surrogate-Key, Cache-Tag and xkey headers, and once a change commits,
# the background runner purges the pages showing what it moved through BIJI_EDGE_PURGER: none,
# varnish (a PURGE with xkey-purge to each of BIJI_EDGE_PURGE_URLS), fastly or cloudflare
# (BIJI_EDGE_SERVICE: the service or zone id; BIJI_EDGE_API_TOKEN; BIJI_EDGE_API_URL: another
# API address). BIJI_EDGE_KEY_PREFIX goes before every key, for several sites on one edge.
BIJI_EDGE_PURGER = env("BIJI_EDGE_PURGER", "none").lower()
if BIJI_EDGE_PURGER not in ("none", "varnish", "fastly", "cloudflare"):
    raise ImproperlyConfigured(
        f"BIJI_EDGE_PURGER={BIJI_EDGE_PURGER!r}: choose none, varnish, fastly or cloudflare."
    )
BIJI_EDGE_PURGE_URLS = env_list("BIJI_EDGE_PURGE_URLS")
BIJI_EDGE_SERVICE = env("BIJI_EDGE_SERVICE")
BIJI_EDGE_API_TOKEN = env("BIJI_EDGE_API_TOKEN")
BIJI_EDGE_API_URL = env("BIJI_EDGE_API_URL")
BIJI_EDGE_KEY_PREFIX = env("BIJI_EDGE_KEY_PREFIX")
_EDGE_PURGES = BIJI_EDGE_PURGER != "none"

# Public pages may be kept this long by browsers (seconds): 5 minutes; behind a purged edge, 0,
# so that browsers revalidate (the edge answers 304) and see an edit at once.
BIJI_PAGE_MAX_AGE = int(env("BIJI_PAGE_MAX_AGE", "0" if _EDGE_PURGES else "300"))
# ...and shared caches (CDN, nginx) by s-maxage, never past the next scheduled publication: as
# long as browsers, or a day behind a purged edge (a purge that keeps failing waits that long).
BIJI_PAGE_SHARED_MAX_AGE = int(
    env("BIJI_PAGE_SHARED_MAX_AGE", "86400" if _EDGE_PURGES else str(BIJI_PAGE_MAX_AGE))
)
# How long the shared page cache keeps an anonymous page (keys follow the content version, so
# an edit never waits for this); 0 turns the page cache off (conditional GETs still work).
BIJI_PAGE_CACHE_SECONDS = int(env("BIJI_PAGE_CACHE_SECONDS", "86400"))
# With a shared cache (Redis): how many pages each worker also keeps in its own memory, checked
# against the database like any kept page (blog/caching/near.py); 0 turns it off. A page is
# 5-30 KB, so 500 is at most ~15 MB a worker.
BIJI_NEAR_PAGES = int(env("BIJI_NEAR_PAGES", "500"))
# Feeds may be kept this long by browsers and feed readers (seconds).
BIJI_FEED_MAX_AGE = int(env("BIJI_FEED_MAX_AGE", "600"))
# Atom entry ids are tag: URIs on this authority (a host name), so that they survive the blog
# moving to another host; empty: the host of SITE_URL.
BIJI_FEED_ID_AUTHORITY = env("BIJI_FEED_ID_AUTHORITY", "")
# WebSub (blog.mail.websub): the hub every feed names (rel="hub") and that publishing a note
# tells, so feed readers subscribed through it get the note at once. One http(s) URL; empty:
# feeds name no hub and nothing is sent.
BIJI_WEBSUB_HUB = env("BIJI_WEBSUB_HUB")
if BIJI_WEBSUB_HUB and not re.fullmatch(r"https?://[^/\s<>\"@,;]+(/[^\s<>\"]*)?", BIJI_WEBSUB_HUB):
    raise ImproperlyConfigured(
        f"BIJI_WEBSUB_HUB={BIJI_WEBSUB_HUB!r}: give the hub's http:// or https:// URL "
        "(https://pubsubhubbub.appspot.com/, say), or leave it empty."
    )
# The notes as Markdown for people and tools (blog/porting/markdown_source.py): each published
# note's source at its address + "index.md", and /llms.txt, /llms-full.txt (and /en/…) listing
# them. Off: those URLs answer 404 and no page links to them.
BIJI_LLMS_TXT = env_bool("BIJI_LLMS_TXT", True)
# llms-full.txt holds the newest notes of its interface, at most this many and at most
# BIJI_LLMS_FULL_MAX_BYTES of text, so that it is one bounded response the page cache keeps.
BIJI_LLMS_FULL_MAX_NOTES = int(env("BIJI_LLMS_FULL_MAX_NOTES", "100"))
BIJI_LLMS_FULL_MAX_BYTES = int(env("BIJI_LLMS_FULL_MAX_BYTES", str(8 * 1024 * 1024)))
# What robots.txt asks of the crawlers that gather text for language models (GPTBot, ClaudeBot,
# Google-Extended, CCBot…: blog/public/views/pages.py): "allow" leaves them as every crawler,
# "disallow" asks them to stay off the whole site, its Markdown sources included.
BIJI_ROBOTS_AI = env("BIJI_ROBOTS_AI", "allow").lower()
if BIJI_ROBOTS_AI not in ("allow", "disallow"):
    raise ImproperlyConfigured(f"BIJI_ROBOTS_AI={BIJI_ROBOTS_AI!r}: choose allow or disallow.")
# The fediverse (blog.fediverse, docs/fediverse.md): the site as ActivityPub actors followed from
# Mastodon and the like. Off: WebFinger, NodeInfo and every /ap/ URL answer 404.
BIJI_FEDIVERSE = env_bool("BIJI_FEDIVERSE")
# The actors' names (@name@host): the whole site, its Chinese notes, its English notes.
BIJI_FEDIVERSE_ACTORS = env_list("BIJI_FEDIVERSE_ACTORS", "blog,zh,en")
if (
    len(BIJI_FEDIVERSE_ACTORS) != 3
    or len(set(BIJI_FEDIVERSE_ACTORS)) != 3
    or not all(re.fullmatch(r"[a-z0-9_]{1,30}", name) for name in BIJI_FEDIVERSE_ACTORS)
):
    raise ImproperlyConfigured(
        f"BIJI_FEDIVERSE_ACTORS={','.join(BIJI_FEDIVERSE_ACTORS)!r}: three different names of "
        "lower-case letters, digits and '_' (the site, Chinese notes, English notes), e.g. "
        "blog,zh,en."
    )
# On: a Follow waits for the author to approve it in the admin; off: it is accepted at once.
BIJI_FEDIVERSE_MANUAL_APPROVAL = env_bool("BIJI_FEDIVERSE_MANUAL_APPROVAL")
# host:port entries biji may fetch from and deliver to although they resolve to loopback,
# private or link-local addresses (and over plain http): test peers only. Empty by default.
BIJI_FEDIVERSE_PRIVATE_HOSTS = [host.lower() for host in env_list("BIJI_FEDIVERSE_PRIVATE_HOSTS")]
# An inbox refuses bodies over this many bytes (413), and a remote host's requests past
# BIJI_FEDIVERSE_INBOX_LIMIT within BIJI_FEDIVERSE_INBOX_WINDOW seconds (429).
BIJI_FEDIVERSE_INBOX_MAX_BYTES = int(env("BIJI_FEDIVERSE_INBOX_MAX_BYTES", str(256 * 1024)))
BIJI_FEDIVERSE_INBOX_LIMIT = int(env("BIJI_FEDIVERSE_INBOX_LIMIT", "120"))
BIJI_FEDIVERSE_INBOX_WINDOW = int(env("BIJI_FEDIVERSE_INBOX_WINDOW", "60"))
# A signed request's Date may be this many seconds before or after the clock.
BIJI_FEDIVERSE_SIGNATURE_SKEW = int(env("BIJI_FEDIVERSE_SIGNATURE_SKEW", "300"))
# Fetching a remote actor or key: seconds to connect and to read, and its largest size.
BIJI_FEDIVERSE_FETCH_TIMEOUT = float(env("BIJI_FEDIVERSE_FETCH_TIMEOUT", "5"))
BIJI_FEDIVERSE_FETCH_MAX_BYTES = int(env("BIJI_FEDIVERSE_FETCH_MAX_BYTES", str(1024 * 1024)))
# Names this deploy in every cache key and ETag (a git commit, say); empty: a hash of the code,
# templates and static manifest (blog.caching.release), so a deploy never serves pages of the
# last one.
BIJI_RELEASE = env("BIJI_RELEASE", "")

# The background runner (blog.background): tasks stored in the database, run by
# `manage.py db_worker` (`make run` starts two beside the server, supervised: one for the
# "imports" queue, one for the rest, so a long import delays no email or card). A failing
# task is retried on errors that say "try again" (database locked or away, network) up to
# BIJI_TASK_MAX_ATTEMPTS runs in all, waiting BIJI_TASK_RETRY_DELAY seconds before the first
# retry, twice as long before each next. A run past BIJI_TASK_TIME_LIMIT seconds (unless the
# task sets its own time_limit; 0: none) is stopped and fails.
TASKS = {
    "default": {
        "BACKEND": "blog.background.backend.DatabaseBackend",
        "QUEUES": ["default", "imports"],
        "OPTIONS": {
            "max_attempts": int(env("BIJI_TASK_MAX_ATTEMPTS", "3")),
            "retry_delay": float(env("BIJI_TASK_RETRY_DELAY", "10")),
            "time_limit": float(env("BIJI_TASK_TIME_LIMIT", "900")),
        },
    }
}
# Every admin page warns when no worker has been seen (its heartbeat, every few seconds) for
# this many seconds: cards, emails and imports wait until one runs.
BIJI_WORKER_MISSING_AFTER = int(env("BIJI_WORKER_MISSING_AFTER", "180"))
# Several hosts on one database (blog.background.lease): BIJI_HOST_ID names this machine in
# worker ids and heartbeats (default: its host name; one id per machine or container, since a
# process id means something only there). A worker holds its task under a lease of
# BIJI_WORKER_LEASE_SECONDS, renewed by its heartbeat every third of it; a task whose worker
# let it run out is taken over by a worker of any host.
BIJI_HOST_ID = env("BIJI_HOST_ID")
BIJI_WORKER_LEASE_SECONDS = float(env("BIJI_WORKER_LEASE_SECONDS", "30"))
if not BIJI_WORKER_LEASE_SECONDS > 0:
    raise ImproperlyConfigured(
        f"BIJI_WORKER_LEASE_SECONDS={BIJI_WORKER_LEASE_SECONDS:g}: give a number of seconds "
        "above 0 (30 by default)."
    )

# Files readers must never fetch (an uploaded import archive until its import has run):
# owner-only, and never inside MEDIA_ROOT or STATIC_ROOT, which a web server may serve.
BIJI_PRIVATE_ROOT = Path(env("BIJI_PRIVATE_ROOT") or VAR_DIR / "private").resolve()
for _public in (MEDIA_ROOT, STATIC_ROOT):
    if BIJI_PRIVATE_ROOT.is_relative_to(Path(_public).resolve()):
        raise ImproperlyConfigured(
            f"BIJI_PRIVATE_ROOT={BIJI_PRIVATE_ROOT} is inside {_public}, which may be served "
            "to anyone: choose a folder outside MEDIA_ROOT and STATIC_ROOT."
        )

# The admin's imports (blog/porting/tasks.py) run on the "imports" queue. One takes at most
# BIJI_IMPORT_SECONDS (the files not reached by then are reported, to import in another run;
# 0: no limit), and one user may have BIJI_IMPORTS_PER_USER imports waiting or running.
BIJI_IMPORT_SECONDS = int(env("BIJI_IMPORT_SECONDS", "900"))
BIJI_IMPORTS_PER_USER = int(env("BIJI_IMPORTS_PER_USER", "2"))
# A check's archive is kept this many days after it ends, to be imported from its report
# (0: not kept); then deleted when a run starts or by `manage.py delete_checked_archives`.
BIJI_CHECKED_ARCHIVE_DAYS = int(env("BIJI_CHECKED_ARCHIVE_DAYS", "7"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", "WARNING")},
}

# Serve MEDIA_ROOT from Django: in development (DEBUG) unless told otherwise; in production a
# web server (nginx, Caddy) serves /media/, or set BIJI_SERVE_MEDIA=1 on a single machine.
BIJI_SERVE_MEDIA = env_bool("BIJI_SERVE_MEDIA", DEBUG)

# Email (blog.mail): EMAIL_URL names where it goes (config/email_url.py, docs/email.md):
# smtp://user:password@host:587?tls=1, smtps://…, console://, or a provider through
# django-anymail (postmark://TOKEN, ses://, mailgun://KEY@domain, resend://KEY…). Without it:
# the console in DEBUG, else an SMTP server on localhost:25; `make run` points it at its own
# mail sink (manage.py mailsink, var/mail/). Subscribers' mail comes from BIJI_MAIL_FROM (the
# site's title is its name unless the address carries one), at most BIJI_MAIL_RATE messages a
# second per worker (0: no limit). BIJI_MAIL_UNSUBSCRIBE_MAILTO: an address whose mail is read
# and acted on, offered beside the one-click link in List-Unsubscribe (none by default).
_email = email_settings(env("EMAIL_URL"), debug=DEBUG)
ANYMAIL = _email.pop("ANYMAIL", {})
globals().update(_email)  # EMAIL_BACKEND, and EMAIL_HOST… for SMTP
if env("ANYMAIL_WEBHOOK_SECRET"):  # "user:password" the provider's webhooks log in with
    ANYMAIL["WEBHOOK_SECRET"] = env("ANYMAIL_WEBHOOK_SECRET")
BIJI_MAIL_FROM = env("BIJI_MAIL_FROM") or f"biji@{mail_domain(SITE_URL)}"
DEFAULT_FROM_EMAIL = SERVER_EMAIL = BIJI_MAIL_FROM
BIJI_MAIL_RATE = float(env("BIJI_MAIL_RATE", "10"))
BIJI_MAIL_UNSUBSCRIBE_MAILTO = env("BIJI_MAIL_UNSUBSCRIBE_MAILTO")
