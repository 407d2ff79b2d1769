"""The secret key: the README's commands run as they are in a checkout `make run` set up (the
key it keeps in var/secret-key), the environment's key wins, and without any key biji refuses
to start in one clear line (manage.py) or a clear last line (gunicorn), never advising DEBUG
and never making a key up."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import BIN, ROOT
from tests.samples import copy_sample

ISSUE_COMMANDS = ["import_markdown", "export_markdown", "backup", "restore"]


@pytest.fixture
def checkout(tmp_path):
    """A checkout of biji of the test's own: config/ and manage.py copied (BASE_DIR, and so
    var/, are this folder's), the rest linked to the real one; no var/ yet."""
    root = tmp_path / "biji"
    root.mkdir()
    shutil.copytree(ROOT / "config", root / "config", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "manage.py", root / "manage.py")
    for name in ("blog", "templates", "static"):
        (root / name).symlink_to(ROOT / name)
    return root


def keep_key_as_make_setup_does(root, key="a-key-make-setup-kept-0123456789abcdefghijklmnop"):
    var = root / "var"
    var.mkdir(exist_ok=True)
    (var / "secret-key").write_text(key + "\n")
    (var / "secret-key").chmod(0o600)
    return key


def environment(root, **extra):
    """The shell of someone who did `make run` and nothing else: no DJANGO_* variable, no
    database or cache URL (SQLite in the checkout's var/)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "REDIS_", "BIJI_", "SITE_URL"))
    }
    env.update(DJANGO_LOG_LEVEL="ERROR", MEDIA_ROOT=str(root / "media"), **extra)
    return env


def run_manage(root, *args, **extra):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=root,
        env=environment(root, **extra),
        capture_output=True,
        text=True,
        timeout=300,
    )


def succeeded(result):
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.slow
def test_the_readme_s_commands_run_in_a_checkout_make_run_set_up(checkout, tmp_path):
    key = keep_key_as_make_setup_does(checkout)
    for command in ISSUE_COMMANDS:
        succeeded(run_manage(checkout, command, "--help"))
    succeeded(run_manage(checkout, "migrate", "--noinput", "--verbosity", "0"))
    imported = succeeded(run_manage(checkout, "import_markdown", copy_sample("hugo", tmp_path)))
    assert "created" in imported
    succeeded(run_manage(checkout, "export_markdown", str(tmp_path / "export")))
    assert any((tmp_path / "export").rglob("*.md"))
    succeeded(run_manage(checkout, "backup", str(tmp_path / "backup")))
    assert (tmp_path / "backup").is_dir()
    code = "from django.conf import settings as s; print(s.SECRET_KEY, s.DEBUG)"
    shown = run_manage(checkout, "shell", "-v", "0", "-c", code)
    assert succeeded(shown).split() == [key, "False"]  # the kept key; DEBUG still off


def test_the_environment_s_key_wins_over_the_kept_one(checkout):
    keep_key_as_make_setup_does(checkout)
    result = run_manage(
        checkout,
        "shell",
        "-v",
        "0",
        "-c",
        "from django.conf import settings; print(settings.SECRET_KEY)",
        DJANGO_SECRET_KEY="from-the-environment",
    )
    assert succeeded(result).strip() == "from-the-environment"


def one_line_refusal(result):
    """The refusal manage.py prints: one line on stderr, a failing exit status, no traceback."""
    assert result.returncode != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("command", ISSUE_COMMANDS)
def test_without_a_key_each_command_says_how_to_give_one_in_one_line(checkout, command):
    line = one_line_refusal(run_manage(checkout, command, str(checkout / "somewhere")))
    assert "DJANGO_SECRET_KEY" in line and "make setup" in line
    assert "DEBUG" not in line  # turning DEBUG on is no fix for production
    # Nothing was made up: no key, no database.
    assert not (checkout / "var").exists()


def test_an_empty_kept_key_is_refused_in_one_line(checkout):
    keep_key_as_make_setup_does(checkout, key="")
    line = one_line_refusal(run_manage(checkout, "check"))
    assert "secret-key is empty" in line and "make setup" in line
    assert (checkout / "var" / "secret-key").read_text() == "\n"  # left as it was


@pytest.mark.skipif(not (BIN / "gunicorn").exists(), reason="gunicorn is not installed")
@pytest.mark.parametrize("preload", [False, True])
def test_gunicorn_without_a_key_stops_with_the_reason_last(checkout, preload):
    """A server that cannot start says why at the end of what it prints, and stops (no worker
    restarted forever); the traceback it logs ends in config/wsgi.py, not in Django's
    settings machinery."""
    command = [str(BIN / "gunicorn"), "--bind", "127.0.0.1:0", "--workers", "1", "config.wsgi"]
    result = subprocess.run(
        command + (["--preload"] if preload else []),
        cwd=checkout,
        env=environment(checkout),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    reason = next(line for line in reversed(lines) if "biji cannot start: " in line)
    assert lines.index(reason) >= len(lines) - 6
    assert "django/conf/__init__.py" not in result.stderr
    assert "DJANGO_SECRET_KEY" in reason and "make setup" in reason
    assert "DEBUG" not in result.stderr
    assert not (Path(checkout) / "var").exists()
