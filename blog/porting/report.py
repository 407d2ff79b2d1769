"""What an import did and what it could not do, for the command line and the admin page alike.

Every problem names its file and, where known, its line: an author fixing a folder of 300
posts needs ``posts/2019-rust.md:4``, not "a date was invalid". Nothing is dropped silently:
shortcodes kept as text and remote images left as links are listed too. A value quoted from a
file (a URL, a shortcode, a name) is cut to :data:`LONGEST_VALUE` characters, and a line to
:data:`LONGEST_LINE`: an inline image of 8 MB must not become an 8 MB report.
"""

import sys
from collections import Counter
from dataclasses import dataclass, field

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


def unexpected(error):
    """A failure nobody foresaw, for the report (the traceback goes to the log)."""
    return f"unexpected error ({type(error).__name__}): {shorten(error) or 'no message'}"


@dataclass(frozen=True)
class Problem:
    source: str
    line: int | None
    level: str
    message: str

    def __str__(self):
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.level}: {self.message}"


@dataclass(frozen=True)
class Outcome:
    source: str
    action: str
    what: str  # "note zai-h100 (zh-hans)", "page about", "site settings"


@dataclass
class Report:
    dry_run: bool = False
    outcomes: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    remote_images: list = field(default_factory=list)  # (source, url)
    kept_shortcodes: list = field(default_factory=list)  # (source, line, text)

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

    def lines(self):
        """The report as text lines, in the order things happened per kind."""
        verb = "would be " if self.dry_run else ""
        out = [f"{o.source}: {verb}{o.action}: {o.what}" for o in self.outcomes]
        out += [str(problem) for problem in self.problems]
        out += [
            f"{source}{f':{line}' if line else ''}: kept as text (not translated): {shorten(text)}"
            for source, line, text in self.kept_shortcodes
        ]
        out += [
            f"{source}: remote image left as a link: {shorten(url)}"
            for source, url in self.remote_images
        ]
        out = [shorten(line, LONGEST_LINE) for line in out]
        counts = self.counts
        summary = ", ".join(
            f"{counts.get(action, 0)} {action}" for action in (CREATED, UPDATED, UNCHANGED, SKIPPED)
        )
        prefix = "Dry run, nothing written: " if self.dry_run else ""
        out.append(
            f"{prefix}{summary}; {len(self.errors)} errors, "
            f"{len(self.problems) - len(self.errors)} warnings, "
            f"{len(self.kept_shortcodes)} shortcodes kept as text, "
            f"{len(self.remote_images)} remote images."
        )
        return out


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
