"""The bounds of one import, so that no file can make it run for minutes or fill the memory.

Each is stated in docs/moving.md and reported for the file that meets it; that file is
skipped and the others are imported.
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
