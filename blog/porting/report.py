"""What an import did and what it could not do, for the command line and the admin page alike.

Every problem names its file and, where known, its line; nothing is dropped silently. Quoted
values are cut (:data:`LONGEST_VALUE`, :data:`LONGEST_LINE`): an 8 MB inline image must not
become an 8 MB report. Words are chosen when the lines are written (:mod:`.wording`).
"""

import sys
from collections import Counter
from dataclasses import dataclass, field

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

CREATED, UPDATED, UNCHANGED, SKIPPED = "created", "updated", "unchanged", "skipped"
ERROR, WARNING = "error", "warning"
LONGEST_VALUE = 120
LONGEST_LINE = 400


def shorten(value, limit=LONGEST_VALUE):
    """``value`` as text, cut in the middle to ``limit`` characters with the length said."""
    text = str(value)
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 10)
    return f"{text[: keep * 2 // 3]}…[{len(text):,} characters]…{text[-(keep // 3) :]}"


@dataclass(frozen=True)
class Problem:
    source: str
    line: int | None
    level: str
    message: str  # or a message worded when shown (.wording)

    def __str__(self):
        with translation.override(None):
            return self.text()

    def text(self):
        """The problem's line, its level in the active language."""
        where = f"{self.source}:{self.line}" if self.line else self.source
        level = {
            ERROR: pgettext("import report", "error"),
            WARNING: pgettext("import report", "warning"),
        }[self.level]
        return f"{where}: {level}: {self.message}"


@dataclass(frozen=True)
class Outcome:
    source: str
    action: str
    what: str  # "note zai-h100 (zh-hans)", "page about", "site settings"; worded when shown


@dataclass
class Report:
    dry_run: bool = False
    outcomes: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    remote_images: list = field(default_factory=list)  # (source, url)
    kept_shortcodes: list = field(default_factory=list)  # (source, line, text)
    # source → lines saying how its front matter was read (.report_keys), shown under it
    readings: dict = field(default_factory=dict)

    def add(self, source, action, what):
        self.outcomes.append(Outcome(source, action, what))

    def error(self, source, message, line=None):
        self.problems.append(Problem(source, line, ERROR, message))

    def warn(self, source, message, line=None):
        self.problems.append(Problem(source, line, WARNING, message))

    @property
    def counts(self):
        return Counter(outcome.action for outcome in self.outcomes)

    @property
    def errors(self):
        return [p for p in self.problems if p.level == ERROR]

    def lines(self, language=None):
        """The report as text lines, in order per kind, in ``language`` if given, else English."""
        with translation.override(language):
            return [shorten(line, LONGEST_LINE) for line in self._lines()]

    def _lines(self):
        out = []
        for outcome in self.outcomes:
            out.append(
                f"{outcome.source}: {action_text(outcome.action, self.dry_run)}: {outcome.what}"
            )
            out += [f"    {reading}" for reading in self.readings.get(outcome.source, ())]
        out += [problem.text() for problem in self.problems]
        kept = pgettext("import report", "kept as text (not translated)")
        out += [
            f"{source}{f':{line}' if line else ''}: {kept}: {shorten(text)}"
            for source, line, text in self.kept_shortcodes
        ]
        remote = pgettext("import report", "remote image left as a link")
        out += [f"{source}: {remote}: {shorten(url)}" for source, url in self.remote_images]
        out.append(self.summary())
        return out

    def summary(self):
        """The last line: what was done and what went wrong, counted."""
        counts = self.counts
        summary = _(
            "%(created)d created, %(updated)d updated, %(unchanged)d unchanged, %(skipped)d "
            "skipped; %(errors)d errors, %(warnings)d warnings, %(shortcodes)d shortcodes kept "
            "as text, %(images)d remote images."
        ) % {
            **{action: counts.get(action, 0) for action in (CREATED, UPDATED, UNCHANGED, SKIPPED)},
            "errors": len(self.errors),
            "warnings": len(self.problems) - len(self.errors),
            "shortcodes": len(self.kept_shortcodes),
            "images": len(self.remote_images),
        }
        if self.dry_run:
            return _("Dry run, nothing written: %(summary)s") % {"summary": summary}
        return summary


def action_text(action, dry_run=False):
    """A file's outcome ("created"; a dry run's "would be created") in the active language."""
    if dry_run:
        return {
            CREATED: pgettext("import report", "would be created"),
            UPDATED: pgettext("import report", "would be updated"),
            UNCHANGED: pgettext("import report", "would be unchanged"),
            SKIPPED: pgettext("import report", "would be skipped"),
        }.get(action, action)
    return {
        CREATED: pgettext("import report", "created"),
        UPDATED: pgettext("import report", "updated"),
        UNCHANGED: pgettext("import report", "unchanged"),
        SKIPPED: pgettext("import report", "skipped"),
    }.get(action, action)


class Progress:
    """A one-line progress bar on a terminal for long imports; silent otherwise."""

    def __init__(self, total, stream=None, threshold=20):
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = total >= threshold and getattr(self.stream, "isatty", lambda: False)()
        self.done = 0

    def step(self, label=""):
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = width * self.done // self.total
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:40]:<40}")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()
