"""The words of an import's problems and outcomes, chosen when the report is shown.

A report is written after its run, in the language asked for then, so a message is kept as a
lazy translation with its values (:func:`worded`), worded by ``str()``; the errors biji raises
for the report carry one (:class:`.values.RecordError`, :class:`.frontmatter.FrontMatterError`,
:class:`.authority.NotPermitted`…). Texts from elsewhere stay as they were given.
"""

from django.utils.functional import Promise, lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy

from blog.porting.report import shorten


def _word(text, values):
    return text % values if values else str(text)


_worded = lazy(_word, str)


def worded(text, **values):
    """``text`` (a lazy message) with ``values`` put in, in the language active when shown."""
    return _worded(text, values)


def error_text(error, limit=None):
    """What ``error`` says in the report: the message biji raised it with, worded when
    shown; any other error's own text (English), cut to ``limit`` characters if given."""
    if len(error.args) == 1 and isinstance(error.args[0], Promise):
        return error.args[0]
    return shorten(error, limit) if limit else str(error)


# What became of a file skipped for an error ("posts/x.md: skipped: error").
FAILED = pgettext_lazy("import report", "error")


def not_imported(reason):
    """A skipped file's problem: "not imported: " and why."""
    return worded(_("not imported: %(reason)s"), reason=reason)


def unexpected(error):
    """A failure nobody foresaw, for the report (the traceback goes to the log)."""
    return worded(
        _("unexpected error (%(type)s): %(message)s"),
        type=type(error).__name__,
        message=shorten(error) or _("no message"),
    )


def refusal(years):
    """Why a date outside ``years`` is refused, worded when shown (``years.error`` words it now)."""
    return worded(years.message, first=years.first, last=years.last)


def listed(items):
    """``items`` as one phrase ("site settings, navigation and tags"), worded when shown."""
    items = list(items)
    if len(items) < 2:
        return items[0] if items else ""
    return _worded_list(items)


def _list_words(items):
    return pgettext("import report", "%(items)s and %(last)s") % {
        # Translators: between the items of a list, as in "site settings, navigation and tags"
        "items": pgettext("import report", ", ").join(str(item) for item in items[:-1]),
        "last": items[-1],
    }


_worded_list = lazy(_list_words, str)
