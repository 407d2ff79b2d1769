"""A dry run that holds no write lock: on SQLite, it runs in a child process on a copy.

A dry run is an import in one transaction rolled back at its end; on SQLite that would hold
the only write lock throughout. So :func:`run_on_copy` copies the database (SQLite's backup
API: a read) into an owner-only folder, has a child process (:mod:`.dry_run_child`) run the
import there, and reads back its report with each message worded in every language. On
PostgreSQL, or inside a transaction already open (a copy would not see it), it keeps its own.

May import: :mod:`.report`.
"""

import codecs
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.utils import translation
from django.utils.functional import lazy

from blog.porting.report import Outcome, Problem, Report

# Settings whose values the report depends on, given to the child as this process has them
# (each is read from the environment variable of its name).
INHERITED = (
    "MEDIA_ROOT", "TIME_ZONE", "SITE_URL", "BIJI_UPLOAD_MAX_BYTES", "BIJI_UPLOAD_MAX_PIXELS",
    "BIJI_UPLOAD_MAX_FRAMES", "BIJI_UPLOAD_MAX_TOTAL_PIXELS", "BIJI_RENDER_SECONDS",
    "BIJI_RENDER_WALL_SECONDS", "BIJI_RENDER_MEMORY_MB",
)  # fmt: skip
DATABASE = "db.sqlite3"
SEGMENT = re.compile(r"(?=[\r\n])")  # a progress bar's redraws start with \r


class DryRunFailed(RuntimeError):
    """The child process ended without a report (its error is in the log)."""


def wanted():
    """Whether a dry run should run on a copy: SQLite, and no transaction open already."""
    return connection.vendor == "sqlite" and not connection.in_atomic_block


def run_on_copy(kind, arguments, progress_stream=None, user=None, deadline=None, folder=None):
    """The report of a dry run of ``kind`` (in :data:`.run.IMPORTS`) with ``arguments``, by a
    child on a copy made in a new folder in ``folder`` (``BIJI_PRIVATE_ROOT/dry-runs``)."""
    parent = Path(folder or Path(settings.BIJI_PRIVATE_ROOT) / "dry-runs")
    parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    workspace = Path(tempfile.mkdtemp(prefix="dry-run-", dir=parent))  # mode 700
    try:
        copy_database(workspace / DATABASE)
        request = {
            "kind": kind,
            "arguments": arguments,
            "user": user.pk if user is not None else None,
            "seconds": deadline.remaining() if deadline is not None else None,
            "language": translation.get_language(),
            "progress": progress_stream is not None and progress_stream.isatty(),
            "report": str(workspace / "report.json"),
            "parent": os.getpid(),
        }
        (workspace / "request.json").write_text(json.dumps(request))
        _run_child(workspace, progress_stream)
        return _report_from(json.loads((workspace / "report.json").read_text()))
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def copy_database(target):
    """A consistent copy of the default database (SQLite) at ``target``."""
    connection.ensure_connection()
    copy = sqlite3.connect(target)
    try:
        connection.connection.backup(copy)
    finally:
        copy.close()


def _child_environment(workspace):
    env = {name: value for name, value in os.environ.items() if name != "REDIS_URL"}
    env.update({name: str(getattr(settings, name)) for name in INHERITED})
    env["DATABASE_URL"] = f"sqlite:///{workspace / DATABASE}"
    env["DJANGO_SETTINGS_MODULE"] = os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings")
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(settings.BASE_DIR), env.get("PYTHONPATH")])
    )
    return env


def _run_child(workspace, progress_stream):
    # In this process's folder: the paths given are relative to it, and so are the names
    # the report gives the files.
    child = subprocess.Popen(  # noqa: S603 (this interpreter, this module)
        [sys.executable, "-m", "blog.porting.dry_run_child", str(workspace / "request.json")],
        env=_child_environment(workspace),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    try:
        _relay(child.stdout, progress_stream)
        status = child.wait()
    finally:
        if child.poll() is None:  # this process was stopped (the import's time limit)
            child.kill()
            child.wait()
        child.stdout.close()
    if status != 0:
        raise DryRunFailed(f"the dry run's process ended with status {status} (see the log)")


def _relay(pipe, stream):
    """The child's progress bar, redraw by redraw, onto ``stream`` (or nowhere)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    while chunk := os.read(pipe.fileno(), 65536):
        *redraws, pending = SEGMENT.split(pending + decoder.decode(chunk))
        for redraw in filter(None, redraws):
            if stream is not None:
                stream.write(redraw)
                stream.flush()
    if pending and stream is not None:
        stream.write(pending)
        stream.flush()


# --- the report, worded in every language -------------------------------------------------


def _languages():
    return ["", *(code for code, _name in settings.LANGUAGES)]  # "": none (as written)


def _in_every_language(message):
    words = {}
    for code in _languages():
        with translation.override(code or None):
            words[code] = str(message)
    return words


def _as_shown(words):
    return words.get(translation.get_language() or "", words[""])


_worded_as_shown = lazy(_as_shown, str)


def report_as_json(report):
    """``report`` for the parent: each message worded in every language of the site."""
    return {
        "outcomes": [[o.source, o.action, _in_every_language(o.what)] for o in report.outcomes],
        "problems": [
            [p.source, p.line, p.level, _in_every_language(p.message)] for p in report.problems
        ],
        "remote_images": report.remote_images,
        "kept_shortcodes": report.kept_shortcodes,
    }


def _report_from(data):
    return Report(
        dry_run=True,
        outcomes=[
            Outcome(source, action, _worded_as_shown(what))
            for source, action, what in data["outcomes"]
        ],  # fmt: skip
        problems=[
            Problem(source, line, level, _worded_as_shown(message))
            for source, line, level, message in data["problems"]
        ],
        remote_images=[tuple(item) for item in data["remote_images"]],
        kept_shortcodes=[tuple(item) for item in data["kept_shortcodes"]],
    )
