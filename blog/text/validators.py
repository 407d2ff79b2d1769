"""Links the author types: only schemes a reader can follow. The field validator refuses the rest,
and templates pass every stored URL through :func:`safe_url`, whatever the database holds."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

SAFE_SCHEMES = {"http", "https", "mailto"}


def is_safe_url(url) -> bool:
    """http, https, mailto, or a path on this site (``/series/``, ``about/``, ``#top``)."""
    url = str(url or "").strip()
    # Browsers drop tabs and newlines inside a URL: "java\tscript:" is "javascript:".
    url = "".join(char for char in url if char not in "\t\n\r")
    if not url or url.startswith("//"):
        return False  # protocol-relative URLs leave the site with whatever scheme it has
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return False
    return scheme in SAFE_SCHEMES if scheme else ":" not in url.split("/", 1)[0]


def validate_link_url(value):
    if not is_safe_url(value):
        raise ValidationError(
            _("Use a link starting with https://, http:// or mailto:, or a path such as /series/."),
            code="unsafe_url",
        )


# A URL field's form (an article's source) refuses anything but a web address with Django's
# "Enter a valid URL.", which does not say what would do: the admin gives its form field this
# message instead (``error_messages={"invalid": …}``).
WEB_ADDRESS_MESSAGE = _(
    "Enter a web address starting with https:// or http://, such as https://example.com/post/."
)


def safe_url(url) -> str:
    """``url`` when it is safe to render as a link, else "" (the link goes nowhere)."""
    return str(url).strip() if is_safe_url(url) else ""
