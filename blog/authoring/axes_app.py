"""django-axes (login throttling) under a name an author understands.

Its models' and fields' names are marked here so that ``make messages`` keeps them in biji's
catalogue (django-axes ships no Chinese one). The label stays ``axes``: migrations and data are
unchanged.
"""

from axes.apps import AppConfig as AxesAppConfig
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop


class AxesConfig(AxesAppConfig):
    verbose_name = _("Login protection")


# django-axes' own strings that its admin shows (axes/models.py, axes/admin.py), translated
# in biji's catalogue. Never used here: listed so that makemessages finds them.
AXES_MESSAGES = (
    gettext_noop("access attempt"),
    gettext_noop("access attempts"),
    gettext_noop("access failure"),
    gettext_noop("access failures"),
    gettext_noop("access log"),
    gettext_noop("access logs"),
    gettext_noop("User Agent"),
    gettext_noop("IP Address"),
    gettext_noop("Username"),
    gettext_noop("HTTP Accept"),
    gettext_noop("Path"),
    gettext_noop("Attempt Time"),
    gettext_noop("Access lock out"),
    gettext_noop("GET Data"),
    gettext_noop("POST Data"),
    gettext_noop("Failed Logins"),
    gettext_noop("Logout Time"),
    gettext_noop("Session key hash (sha256)"),
    gettext_noop("Locked Out"),
    gettext_noop("Form Data"),
    gettext_noop("Meta Data"),
    gettext_noop("Clean up expired attempts"),
    gettext_noop("Not set"),
    gettext_noop("Attempt Remaining"),
)
