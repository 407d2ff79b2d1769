"""The bounds of one import, so that no file can make it run for minutes or fill the memory.

Each is stated in docs/moving.md and reported for the file that meets it; that file is
skipped and the others are imported.

* :data:`MAX_MARKDOWN_BYTES`: a Markdown file larger than this is not read (a 20 MB file,
  rendered, would hold the worker for minutes; a long book chapter is ~200 KB).
* :data:`MAX_FRONT_MATTER_VALUES`: the values of a file's front matter once YAML aliases are
  expanded. ``&a [x, x, …]`` and ``*a`` repeated nest lists in lists: 304 bytes can expand to
  100,000 tags (the "billion laughs"). The expanded size is counted on the parsed document
  before anything is built from it, so the refusal costs milliseconds.
  biji's data file (every tag and series of a blog, :mod:`.export`) may hold
  :data:`MAX_DATA_FILE_VALUES`.
* :data:`MAX_TAGS`: tags per note.
* :data:`MAX_FILES`: Markdown files in one import; further files are reported, not read
  (import them in a second run: importing is idempotent).
* :class:`Deadline`: the time one import may take (the admin's: ``BIJI_IMPORT_SECONDS``; the
  command line has none), checked between files; the files not reached by then are reported
  as not imported (import them in another run).
"""

from time import monotonic

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from blog.porting.report import SKIPPED
from blog.porting.wording import not_imported

MAX_MARKDOWN_BYTES = 1024 * 1024
MAX_FRONT_MATTER_VALUES = 1000
MAX_DATA_FILE_VALUES = 100_000  # ~14,000 tags with both names
MAX_TAGS = 100
MAX_FILES = 5000


class Deadline:
    """When an import must stop taking up new files: ``seconds`` from now (None: never)."""

    def __init__(self, seconds=None):
        self.at = None if seconds is None else monotonic() + seconds

    def passed(self):
        return self.at is not None and monotonic() >= self.at

    def remaining(self):
        """Seconds left (at least 0), or None for no deadline."""
        return None if self.at is None else max(self.at - monotonic(), 0.0)

    @staticmethod
    def not_reached(report, source):
        """Report ``source`` as a file the import had no time left for."""
        report.error(source, not_imported(_("time ran out: import it in another run")))
        report.add(source, SKIPPED, pgettext_lazy("import report", "time ran out"))
