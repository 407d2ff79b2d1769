#!/usr/bin/env python3
# ruff: noqa: S603  (runs the command it is given)
"""Keep a command running: ``supervise.py [--name NAME] -- COMMAND [ARGS…]``.

``make run`` runs each background worker (``manage.py db_worker``) under it. When the
command exits, whatever its status (a crash, ``kill -9``), it is started again after a
pause, with a line on stderr that says so. The pause is ``--first-delay`` (1 s), doubled
each time the command dies within ``--healthy-after`` seconds (10) of its start, up to
``--longest-delay`` (60 s); a run that lasted longer starts the count again.

SIGINT or SIGTERM stops it: the command gets one SIGTERM (a worker then finishes the task
at hand) and the supervisor exits when it has, with status 0. A second signal within 2 s
is the same request (Ctrl-C reaches both ``make`` and its recipe's trap); a later one is
passed on (a worker then stops its task at once). The command runs in a session of its
own, so the terminal's Ctrl-C reaches it only through the supervisor, and on Linux it gets
SIGTERM if the supervisor dies.

Standard library only: it runs before anything is installed.
"""

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
SAME_REQUEST_WITHIN = 2.0  # seconds: a second signal this soon is the first one repeated


def say(name, message):
    print(f"supervise: {name}: {message}", file=sys.stderr, flush=True)


def _die_with_parent():
    """In the child, before exec: SIGTERM when the supervisor dies (Linux; elsewhere nothing)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


class Supervisor:
    def __init__(self, command, name, first_delay, longest_delay, healthy_after):
        self.command, self.name = command, name
        self.first_delay, self.longest_delay = first_delay, longest_delay
        self.healthy_after = healthy_after
        self.child = None
        self.stop_asked_at = None

    def on_signal(self, signum, frame):
        now = time.monotonic()
        if self.stop_asked_at is None:
            self.stop_asked_at = now
            say(self.name, f"{signal.strsignal(signum)}: stopping")
            self.forward(signal.SIGTERM)
        elif now - self.stop_asked_at >= SAME_REQUEST_WITHIN:
            say(self.name, f"{signal.strsignal(signum)} again: passed on")
            self.forward(signum)

    def forward(self, signum):
        if self.child is not None and self.child.poll() is None:
            try:
                self.child.send_signal(signum)
            except ProcessLookupError:
                pass

    def pause(self, seconds):
        """Sleep ``seconds``, or less when asked to stop."""
        deadline = time.monotonic() + seconds
        while self.stop_asked_at is None and time.monotonic() < deadline:
            time.sleep(min(0.1, max(deadline - time.monotonic(), 0)))

    def run(self):
        signal.signal(signal.SIGINT, self.on_signal)
        signal.signal(signal.SIGTERM, self.on_signal)
        delay = self.first_delay
        while self.stop_asked_at is None:
            started = time.monotonic()
            try:
                self.child = subprocess.Popen(
                    self.command, start_new_session=True, preexec_fn=_die_with_parent
                )
            except OSError as error:
                say(self.name, f"cannot start {self.command[0]}: {error}")
                return 127
            if self.stop_asked_at is not None:  # asked while it was starting
                self.forward(signal.SIGTERM)
            status = self.child.wait()
            if self.stop_asked_at is not None:
                break
            lasted = time.monotonic() - started
            if lasted >= self.healthy_after:
                delay = self.first_delay
            how = f"killed by {signal.Signals(-status).name}" if status < 0 else f"status {status}"
            say(
                self.name,
                f"pid {self.child.pid} exited ({how}) after {lasted:.1f} s; "
                f"restarting in {delay:g} s",
            )
            self.pause(delay)
            delay = min(delay * 2, self.longest_delay) if lasted < self.healthy_after else delay
        return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Keep a command running; restart it when it exits."
    )
    parser.add_argument("--name", help="What to call the command in messages.")
    parser.add_argument("--first-delay", type=float, default=1.0)
    parser.add_argument("--longest-delay", type=float, default=60.0)
    parser.add_argument("--healthy-after", type=float, default=10.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    supervisor = Supervisor(
        command,
        args.name or os.path.basename(command[0]),
        args.first_delay,
        args.longest_delay,
        args.healthy_after,
    )
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main())
