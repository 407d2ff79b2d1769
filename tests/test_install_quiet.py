"""``make setup`` installs biji without a word: a first ``make run`` that prints warning boxes
looks like a failure to a new writer."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL = "pip install --quiet --no-deps -e ."

pytestmark = [pytest.mark.slow, pytest.mark.backend_independent]


def test_installing_biji_as_make_setup_does_prints_nothing(tmp_path):
    line = next(line for line in (ROOT / "Makefile").read_text().splitlines() if INSTALL in line)
    source = tmp_path / "biji"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("blog", "config"):
        skipped = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / folder, source / folder, ignore=skipped)
    # The Makefile's command, into a prefix of its own and with this environment's setuptools
    # (no download), so that the checkout's own installation is left alone: without
    # --ignore-installed pip uninstalls it first, and the tests that import the installed
    # biji from another folder fail after this one.
    command = line.strip().replace("$(PY)", sys.executable)
    command += f" --no-build-isolation --ignore-installed --prefix {tmp_path / 'prefix'}"
    result = subprocess.run(
        [shutil.which("bash"), "-c", command],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout + result.stderr == ""
