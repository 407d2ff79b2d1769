"""Who imports: what they may do, checked as the admin checks it, and the record of what they did.

The command line (``user`` None) is the operator's tool: everything is allowed and nothing is
logged under a user. From the admin, an import may create, change or publish only what the
importing user could in the admin, asked with the permission names the admin uses:

* a new note or page needs ``blog.add_note``/``blog.add_page`` (published or not, as in the
  add form); changing one that exists (its text, its status: publishing and unpublishing are
  changes) needs ``blog.change_note``/``blog.change_page``;
* linking a new note to a translation that existed before the import changes that note's page
  (it shows the link), so it needs ``blog.change_note``;
* a new series needs ``blog.add_series`` (the admin's series field offers only existing ones
  otherwise); the data file's series and tags need ``add_``/``change_`` on them; completing an
  existing tag's other name needs ``blog.change_tag`` (new tags come with a note, as the admin's
  tag field creates them);
* the site settings need ``blog.change_sitesettings`` (``add_`` when there are none yet), the
  navigation also ``blog.add_navigationlink`` and ``blog.delete_navigationlink`` (its links are
  replaced, as the settings page's inline does).

What is not allowed raises :class:`NotPermitted`, which the importer reports for its file and
skips; the rest of the import goes on. Every object created or changed gets an admin log entry
under the user (:meth:`Authority.log`), beside the revision the importer records.
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
    """The importing user may not do this; the message says what and which permission,
    worded when the report is shown."""


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
