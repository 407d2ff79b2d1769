"""Django's own messages that biji's Chinese catalogue words again (你, full-width punctuation).

Nothing uses this list: it marks the strings so that ``make messages`` keeps them. Their
translations live in blog/locale/zh_Hans/LC_MESSAGES/django.po.
"""

from django.utils.translation import gettext_noop

DJANGO_MESSAGES = (
    # django/contrib/admin: messages after a save, the login, the logout and delete pages.
    gettext_noop("You may edit it again below."),
    gettext_noop(
        "Please enter the correct %(username)s and password for a staff account. Note that "
        "both fields may be case-sensitive."
    ),
    gettext_noop(
        "You are authenticated as %(username)s, but are not authorized to access this page. "
        "Would you like to login to a different account?"
    ),
    gettext_noop("Thanks for spending some quality time with the web site today."),
    gettext_noop("Sorting priority: %(priority_number)s"),
    gettext_noop(
        "Deleting the %(object_name)s '%(escaped_object)s' would require deleting the "
        "following protected related objects:"
    ),
    gettext_noop(
        "Deleting the selected %(objects_name)s would require deleting the following "
        "protected related objects:"
    ),
    gettext_noop(
        "Deleting the selected %(objects_name)s would result in deleting related objects, "
        "but your account doesn't have permission to delete the following types of objects:"
    ),
    # django/forms: the admin's forms (a cover image, inline rows).
    gettext_noop(
        "Upload a valid image. The file you uploaded was either not an image or a corrupted image."
    ),
    gettext_noop("Please correct the duplicate values below."),
    # django/views/csrf.py: a login form posted without its CSRF cookie.
    gettext_noop("CSRF verification failed. Request aborted."),
    gettext_noop(
        "You are seeing this message because this HTTPS site requires a “Referer header” to "
        "be sent by your web browser, but none was sent. This header is required for security "
        "reasons, to ensure that your browser is not being hijacked by third parties."
    ),
    gettext_noop(
        "If you have configured your browser to disable “Referer” headers, please re-enable "
        "them, at least for this site, or for HTTPS connections, or for “same-origin” requests."
    ),
    gettext_noop(
        'If you are using the <meta name="referrer" content="no-referrer"> tag or including '
        "the “Referrer-Policy: no-referrer” header, please remove them. The CSRF protection "
        "requires the “Referer” header to do strict referer checking. If you’re concerned "
        'about privacy, use alternatives like <a rel="noreferrer" …> for links to '
        "third-party sites."
    ),
    gettext_noop(
        "You are seeing this message because this site requires a CSRF cookie when submitting "
        "forms. This cookie is required for security reasons, to ensure that your browser is "
        "not being hijacked by third parties."
    ),
    gettext_noop(
        "If you have configured your browser to disable cookies, please re-enable them, at "
        "least for this site, or for “same-origin” requests."
    ),
)
