"""``EMAIL_URL``: where biji's email goes, in one environment variable.

One URL names the way out and its credentials, as ``DATABASE_URL`` names the database:

* ``smtp://user:password@host:587?tls=1``: an SMTP server, STARTTLS with ``tls=1``
  (port 25 without a port, 587 with ``tls=1``); ``smtps://…`` is SMTP over TLS (port 465).
  User and password are URL-encoded (``%40`` for an ``@``). ``timeout=`` seconds (30).
* ``console://``: each message printed on the standard output (development).
* ``file:///path/to/folder``: each message written to a file in the folder.
* ``locmem://``: kept in memory (``django.core.mail.outbox``), for tests.
* A provider's HTTP API through django-anymail: ``postmark://SERVER_TOKEN``,
  ``resend://API_KEY``, ``sendgrid://API_KEY``, ``brevo://API_KEY``,
  ``sparkpost://API_KEY``, ``mailgun://API_KEY@sending.domain`` (``?api_url=`` for the EU
  region), ``mailjet://API_KEY:SECRET_KEY``, ``ses://`` (Amazon SES with boto3's own
  credentials, ``?region=eu-west-1`` for a region; ``ses://KEY_ID:SECRET@region`` to give
  them; needs ``pip install boto3``).
  Any other query parameter becomes the provider's anymail setting of that name:
  ``mailgun://…?webhook_signing_key=…`` sets ``MAILGUN_WEBHOOK_SIGNING_KEY``.

:func:`email_settings` turns the URL into Django's settings (``EMAIL_BACKEND``,
``EMAIL_HOST``…, ``ANYMAIL``); config/settings.py applies them. Nothing here imports Django's
mail machinery or a provider's library: a URL naming a provider that is not installed fails
when the first message is sent, not at start-up.
"""

from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

# scheme: (anymail's backend module, the setting the URL's key fills, the host part's)
PROVIDERS = {
    "postmark": ("postmark", "SERVER_TOKEN", None),
    "resend": ("resend", "API_KEY", None),
    "sendgrid": ("sendgrid", "API_KEY", None),
    "brevo": ("brevo", "API_KEY", None),
    "sparkpost": ("sparkpost", "API_KEY", None),
    "mailgun": ("mailgun", "API_KEY", "SENDER_DOMAIN"),
    "mailjet": ("mailjet", "API_KEY", None),  # the password part: SECRET_KEY
    "ses": ("amazon_ses", None, None),
}
# The prefix of a provider's settings in ANYMAIL (anymail's own names).
SETTING_PREFIX = {"ses": "AMAZON_SES"}
TRUE = {"1", "true", "yes", "on"}


def mail_domain(site_url):
    """The mail domain of the site at ``site_url``: its host name ("localhost" for an IP
    address or a name without a dot, which no mail address or Message-ID should carry)."""
    host = (urlsplit(site_url).hostname or "").rstrip(".")
    if not host or "." not in host or host.replace(".", "").isdigit() or ":" in host:
        return "localhost"
    return host


def _flag(query, name):
    return query.get(name, "").lower() in TRUE


def _userinfo(netloc):
    """The user and password (URL-decoded) and the host of a URL's netloc."""
    userinfo, _, host = netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return unquote(user), unquote(password), host


def email_settings(url, *, debug=False):
    """Django's email settings for ``url`` (empty: the console in DEBUG, else an SMTP server
    on localhost:25), as a dict of setting names to values."""
    url = (url or "").strip()
    if not url:
        url = "console://" if debug else "smtp://localhost:25"
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    query = dict(parse_qsl(parts.query))
    if scheme in {"smtp", "smtps"}:
        return _smtp(scheme, parts, query)
    if scheme == "console":
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if scheme == "locmem":
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    if scheme == "file":
        if not parts.path:
            raise ImproperlyConfigured("EMAIL_URL=file:///folder needs a folder.")
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": unquote(parts.path),
        }
    if scheme in PROVIDERS:
        return _provider(scheme, parts, query)
    known = ", ".join(["smtp", "smtps", "console", "file", "locmem", *PROVIDERS])
    raise ImproperlyConfigured(
        f"EMAIL_URL: unknown scheme {parts.scheme!r}; use one of {known} (docs/email.md)."
    )


def _smtp(scheme, parts, query):
    user, password, _ = _userinfo(parts.netloc)
    ssl = scheme == "smtps" or _flag(query, "ssl")
    tls = not ssl and _flag(query, "tls")
    try:
        port = parts.port or (465 if ssl else 587 if tls else 25)
    except ValueError:
        message = f"EMAIL_URL: the port of {parts.netloc!r} is not a number"
        raise ImproperlyConfigured(message) from None
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname or "localhost",
        "EMAIL_PORT": port,
        "EMAIL_HOST_USER": user,
        "EMAIL_HOST_PASSWORD": password,
        "EMAIL_USE_TLS": tls,
        "EMAIL_USE_SSL": ssl,
        # A server that stops answering must not hold the worker for ever.
        "EMAIL_TIMEOUT": float(query.get("timeout", 30)),
    }


def _provider(scheme, parts, query):
    module, key_setting, host_setting = PROVIDERS[scheme]
    prefix = SETTING_PREFIX.get(scheme, scheme.upper())
    # From the netloc as written: urlsplit lowers the host, and postmark://TOKEN's token is
    # the "host" when there is no "@".
    credentials, _, host = parts.netloc.rpartition("@")
    if "@" not in parts.netloc:
        credentials, host = parts.netloc, ""
    key, _, secret = (unquote(part) for part in credentials.partition(":"))
    anymail = {}
    if scheme == "ses":
        params = {}
        region = host or query.pop("region", "")
        if region:
            params["region_name"] = region
        if key:
            params.update(aws_access_key_id=key, aws_secret_access_key=secret)
        if params:
            anymail["AMAZON_SES_CLIENT_PARAMS"] = params
    else:
        if not key:
            raise ImproperlyConfigured(f"EMAIL_URL={scheme}://… needs its API key or token.")
        anymail[f"{prefix}_{key_setting}"] = key
        if scheme == "mailjet":
            anymail["MAILJET_SECRET_KEY"] = secret
        if host_setting and host:
            anymail[f"{prefix}_{host_setting}"] = host
    for name, value in query.items():
        anymail[f"{prefix}_{name.upper()}"] = value
    return {"EMAIL_BACKEND": f"anymail.backends.{module}.EmailBackend", "ANYMAIL": anymail}
