"""The child process of a dry run on a copy of the database (:mod:`.dry_run`).

``python -m blog.porting.dry_run_child REQUEST.json``, ``DATABASE_URL`` naming the copy: the
request's import as a dry run, as its user, in its language and time left; its progress on
standard output, its report where the request says. It ends with its parent.

May import: :mod:`.dry_run`, :mod:`.limits`, :mod:`.run` (after ``django.setup()``).
"""

import ctypes
import json
import os
import signal
import sys
from pathlib import Path

import django
from django.utils import translation


class _ProgressOut:
    """The child's progress bar, written to its standard output for the parent to relay."""

    def __init__(self, is_terminal):
        self.is_terminal = is_terminal

    def isatty(self):
        return self.is_terminal

    def write(self, text):
        sys.stdout.write(text)

    def flush(self):
        sys.stdout.flush()


PR_SET_PDEATHSIG = 1


def _end_with_parent(parent):
    """SIGTERM when the parent process ends (Linux; elsewhere the run ends by itself)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it ended before the line above
        sys.exit(1)


def main(request_path):
    request = json.loads(Path(request_path).read_text())
    _end_with_parent(request["parent"])
    django.setup()
    from django.contrib.auth import get_user_model

    from blog.porting.dry_run import report_as_json
    from blog.porting.limits import Deadline
    from blog.porting.run import IMPORTS

    # The importing user's rights bound the import: a user missing from the copy fails it.
    user = None if request["user"] is None else get_user_model().objects.get(pk=request["user"])
    with translation.override(request["language"]):
        report = IMPORTS[request["kind"]](
            **request["arguments"],
            dry_run=True,
            progress_stream=_ProgressOut(request["progress"]),
            user=user,
            deadline=Deadline(request["seconds"]),
        )
        Path(request["report"]).write_text(json.dumps(report_as_json(report)))


if __name__ == "__main__":
    main(sys.argv[1])
