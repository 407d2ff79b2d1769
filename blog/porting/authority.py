"""Who imports: what they may do, asked with the admin's permission names, and its log.

The command line (``user`` None) may do everything and logs nothing. From the admin an import
does only what its user could there (the permissions: docs/moving.md); what is not allowed
raises :class:`NotPermitted`, and the importer skips that file.
"""

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.utils.translation import gettext_lazy as _

from blog.porting.wording import worded

# What the user may not do, for the report: "page about exists: you may not change pages
# (needs blog.change_page)", worded when shown (.wording).
REFUSED = {
    "add": _("%(what)s: you may not add %(objects)s (needs %(permission)s)"),
    "change": _("%(what)s: you may not change %(objects)s (needs %(permission)s)"),
    "delete": _("%(what)s: you may not delete %(objects)s (needs %(permission)s)"),
}


class NotPermitted(Exception):
    """The importing user may not do this; the message names what and the permission."""


class Authority:
    def __init__(self, user=None):
        self.user = user

    @property
    def is_operator(self):
        return self.user is None

    def allows(self, action, model):
        """Whether the user may ``action`` ("add", "change", "delete") objects of ``model``."""
        return self.is_operator or self.user.has_perm(permission(action, model))

    def check(self, action, model, what):
        """Raise :class:`NotPermitted` unless the user may ``action`` ``model`` objects;
        ``what`` ("note warps exists") says what the import was about to do."""
        if not self.allows(action, model):
            raise NotPermitted(
                worded(
                    REFUSED[action],
                    what=what,
                    objects=model._meta.verbose_name_plural,
                    permission=permission(action, model),
                )
            )

    def log(self, obj, created, message):
        """An admin log entry (the object's History in the admin) for a change by the user."""
        if self.is_operator:
            return
        LogEntry.objects.log_actions(
            user_id=self.user.pk,
            queryset=[obj],
            action_flag=ADDITION if created else CHANGE,
            change_message=message,
            single_object=True,
        )


def permission(action, model):
    return f"{model._meta.app_label}.{action}_{model._meta.model_name}"
