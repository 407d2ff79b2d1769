"""One ``build_site`` or ``publish_site`` of a static copy's folder at a time
(blog/ops/static_site/folder_lock.py): while another holds the folder, either command fails at
once, naming the holder's process, with exit status 1, and touches nothing.

The test holds the lock itself (two opens of the lock file are two locks, even in one process),
so no build has to run."""

import contextlib
import fcntl
import io
import json
import os
import re

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.backend_independent


@contextlib.contextmanager
def another_build(folder):
    """``folder`` held as a running build holds it."""
    descriptor = os.open(folder / ".biji-build.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(descriptor)


@pytest.fixture
def built(tmp_path):
    """A folder as build_site leaves it (the smallest one)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>home</title>")
    files = {"index.html": {"content_type": "text/html; charset=utf-8", "kind": "page"}}
    (site / ".biji-build.json").write_text(
        json.dumps({"format": 1, "complete": True, "files": files})
    )
    return site


def snapshot(folder):
    return {
        path.relative_to(folder).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in folder.rglob("*")
    }


def busy(folder):
    return re.escape(f"another build of {folder} is running (pid {os.getpid()})")


def test_a_second_build_or_a_publish_of_a_folder_being_built_fails_at_once(built, tmp_path):
    www = tmp_path / "www"
    with another_build(built):
        before = snapshot(built)
        for command in (
            ["build_site", str(built), "--full"],
            ["publish_site", str(built), "--to", f"folder:{www}"],
        ):
            with pytest.raises(CommandError, match=busy(built)) as refused:
                call_command(*command, stdout=io.StringIO(), stderr=io.StringIO())
            assert refused.value.returncode == 1  # manage.py's exit status
        assert snapshot(built) == before
        assert not www.exists()


def test_the_folder_is_free_once_the_other_ends_and_its_lock_is_never_published(built, tmp_path):
    www = tmp_path / "www"
    with another_build(built):
        pass
    call_command("publish_site", str(built), "--to", f"folder:{www}", stdout=io.StringIO())
    published = {path.name for path in www.iterdir()}
    assert published == {"index.html", ".biji-published"}
