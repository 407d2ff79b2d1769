"""`make superuser` asks its questions in one language, each a whole sentence: English, from
the user name to "Superuser created successfully." (Django's createsuperuser, run in the
site's Chinese, asked "用户名 (leave blank to use 'lin'):")."""

import fcntl
import os
import pty
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import termios
import time

import pytest

from tests.processes import ROOT

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
PASSWORD = "a-Long-pass-7731"


def take_the_terminal():
    """In the child, after setsid: the pty becomes its controlling terminal, as in a shell
    (createsuperuser asks for the password through /dev/tty)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Conversation:
    """A command run on a terminal of its own: wait for what it asks, answer it."""

    def __init__(self, command, env):
        self.master, child = pty.openpty()
        self.process = subprocess.Popen(  # noqa: S603 - make, with the test's own arguments
            command,
            cwd=ROOT,
            env=env,
            stdin=child,
            stdout=child,
            stderr=child,
            start_new_session=True,
            preexec_fn=take_the_terminal,  # noqa: PLW1509 - nothing else runs in the child
        )
        os.close(child)
        self.transcript = ""

    def expect(self, text, timeout=60):
        deadline = time.monotonic() + timeout
        while text not in self.transcript:
            assert time.monotonic() < deadline, f"never asked {text!r}:\n{self.transcript}"
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.transcript += os.read(self.master, 4096).decode(errors="replace")
                except OSError:  # the command ended
                    assert text in self.transcript, f"ended without {text!r}:\n{self.transcript}"

    def answer(self, text):
        os.write(self.master, f"{text}\n".encode())

    def close(self):
        """The command's exit status; a command still asking something is stopped."""
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)  # its own session: make and what it started
            return self.process.wait()
        finally:
            os.close(self.master)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_superuser_asks_in_one_language(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "REDIS_"))
    }
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        DJANGO_SECRET_KEY="test-only",
        MEDIA_ROOT=str(tmp_path / "media"),
        LANG="C.UTF-8",
    )
    # The target as it is, without its `setup` prerequisite (the virtualenv is this one).
    command = ["make", "-s", "-o", "setup", "superuser", f"PY={sys.executable}"]
    command.append(f"MANAGE={sys.executable} manage.py")
    talk = Conversation(command, env)
    try:
        talk.expect("Username (leave blank to use ")
        talk.answer("lin")
        talk.expect("Email address: ")
        talk.answer("lin@example.com")
        talk.expect("Password: ")
        talk.answer(PASSWORD)
        talk.expect("Password (again): ")
        talk.answer(PASSWORD)
        talk.expect("Superuser created successfully.")
    finally:
        status = talk.close()
    assert status == 0, talk.transcript
    assert not CJK.search(talk.transcript), talk.transcript
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT username, is_superuser FROM auth_user").fetchall() == [("lin", 1)]
