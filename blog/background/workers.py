"""Who a worker is, ``host:pid:start`` (start time in clock ticks from /proc), so anyone on the same
machine can tell whether it still runs: a reused process id has another start time. Ids of another
shape or host are never judged dead here: another host's workers are judged by their lease
(:mod:`.lease`).

The host is ``BIJI_HOST_ID`` when set, else the machine's name: one id per machine (or container),
since a process id means something only on the machine that gave it."""

import os
import socket
from pathlib import Path

from django.conf import settings

# django-tasks-db keeps worker ids of at most 64 characters.
LONGEST_HOST = 40


def host():
    name = settings.BIJI_HOST_ID or socket.gethostname()
    return name[:LONGEST_HOST].replace(":", "-")


def _stat(pid):
    """Fields of /proc/<pid>/stat after the command name, or None without /proc or process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _start_time(pid):
    fields = _stat(pid)
    return fields[19] if fields else "0"  # field 22 of the file: starttime


def current_worker_id():
    pid = os.getpid()
    return f"{host()}:{pid}:{_start_time(pid)}"


def is_here(worker_id):
    """Whether ``worker_id`` names a process of this host (so its process can be seen)."""
    parts = worker_id.rsplit(":", 2)
    return len(parts) == 3 and parts[0] == host() and parts[1].isdigit()


def is_dead(worker_id):
    """True if ``worker_id`` names a worker process of this host that no longer runs."""
    if not is_here(worker_id):
        return False
    parts = worker_id.rsplit(":", 2)
    pid, started = int(parts[1]), parts[2]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # a process of another user: it exists
    fields = _stat(pid)
    if fields is None:
        return False  # no /proc: the process exists, trust it is the worker
    zombie = fields[0] == "Z"  # killed, not yet reaped by its parent
    return zombie or (started != "0" and fields[19] != started)
