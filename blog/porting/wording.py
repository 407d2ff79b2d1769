"""The words of an import's problems and outcomes, chosen when the report is shown.

An import runs once, and its report is written afterwards (:meth:`.report.Report.lines`) in
the language asked for then: the admin's in the language of the admin who uploaded the
archive, the command line's in English. So a message is kept as a lazy translation with its
values (:func:`worded`) and put into words by ``str()``, in the language active at that
moment; a value may be such a message too ("not imported: " and its reason), and is worded
with it. The errors biji raises for the report (:class:`.markdown_import.RecordError`,
:class:`.frontmatter.FrontMatterError`, :class:`.authority.NotPermitted`…) carry one, and
:func:`error_text` takes it out unworded.

Texts from elsewhere stay as they were given: Python's and the parsers' own errors (an
``OSError``, YAML's "mapping values are not allowed here") in English, Django's validation
messages and the image checks' reasons in the language the import ran in (the admin's, or
English on the command line, whose commands run in English).
"""

from django.utils.functional import Promise, lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy

from blog.porting.report import shorten


def _word(text, values):
    return text % values if values else str(text)


_worded = lazy(_word, str)


def worded(text, **values):
    """``text`` (a ``gettext_lazy``/``ngettext_lazy`` message with ``%(name)s`` placeholders)
    with ``values`` put in, in the language active whenever it is shown."""
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
    """Why a date outside ``years`` (a :class:`blog.text.date_range.YearRange`) is refused,
    worded when shown (:meth:`~blog.text.date_range.YearRange.error` words it at once)."""
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
