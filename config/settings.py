"""biji settings: one file, driven by environment variables.

Every value a deployment changes is read once from the environment below, with defaults that
suit a laptop: DEBUG off, SQLite in ``var/``, a local-memory cache. The README lists each
variable. Tests adjust settings through pytest-django's ``settings`` fixture.
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

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


DEBUG = env_bool("DJANGO_DEBUG")


def _secret_key():
    key = env("DJANGO_SECRET_KEY")
    if key:
        return key
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it (e.g. `python -c 'import secrets; "
            "print(secrets.token_urlsafe(50))'`), or set DJANGO_DEBUG=1 for local development."
        )
    # Development only: a random key kept in an ignored file, so sessions survive restarts.
    key_file = VAR_DIR / "dev-secret-key"
    if not key_file.exists():
        VAR_DIR.mkdir(exist_ok=True)
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
    "blog",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "blog.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Locale before sessions, and from the URL alone (/ Chinese, /en/ English): public pages
    # vary neither on cookies nor on Accept-Language, so a cache can keep them.
    "blog.middleware.URLLocaleMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
                "blog.context_processors.site",
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
    VAR_DIR.mkdir(exist_ok=True)
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets readers and the one writer work at the same time.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", "biji"),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

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
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Fingerprinted static files never change: let browsers and CDNs keep them for a year.
WHITENOISE_MAX_AGE = 31536000

# Security headers; HTTPS-only settings follow SITE_URL's scheme.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
_HTTPS = SITE_URL.startswith("https://")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _HTTPS
SECURE_SSL_REDIRECT = _HTTPS and env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(env("DJANGO_HSTS_SECONDS", "31536000" if _HTTPS else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _HTTPS
SECURE_HSTS_PRELOAD = _HTTPS
if env_bool("DJANGO_BEHIND_PROXY"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# django-markdownx: the editor posts to biji's own staff-only views (blog/editor.py), which
# render with the same function readers get and verify uploads with Pillow.
MARKDOWNX_URLS_PATH = "/admin/editor/preview/"
MARKDOWNX_UPLOAD_URLS_PATH = "/admin/editor/upload/"
MARKDOWNX_MARKDOWNIFY_FUNCTION = "blog.rendering.render_preview"
MARKDOWNX_EDITOR_RESIZABLE = True
MARKDOWNX_SERVER_CALL_LATENCY = 400
BIJI_UPLOAD_MAX_BYTES = int(env("BIJI_UPLOAD_MAX_BYTES", str(5 * 1024 * 1024)))
BIJI_UPLOAD_MAX_PIXELS = 40_000_000
DATA_UPLOAD_MAX_MEMORY_SIZE = BIJI_UPLOAD_MAX_BYTES + 1024 * 1024

TAGGIT_CASE_INSENSITIVE = True

# Share links to drafts expire after this many seconds (and at any edit of the note).
BIJI_PREVIEW_MAX_AGE = int(env("BIJI_PREVIEW_MAX_AGE", str(7 * 86400)))

# Public pages may be kept this long by browsers and shared caches (seconds).
BIJI_PAGE_MAX_AGE = int(env("BIJI_PAGE_MAX_AGE", "300"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", "WARNING")},
}

# Serve MEDIA_ROOT from Django (fine for one machine); set to 0 when a web server does it.
BIJI_SERVE_MEDIA = env_bool("BIJI_SERVE_MEDIA", True)
