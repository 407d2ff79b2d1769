"""The child process a render runs in, held by the kernel to its bounds.

A child is forked once and kept for the renders that follow (each within
:data:`IDLE_SECONDS` of the last, at most :data:`KEPT_RENDERS` of them): a fork costs the
parent's page tables (~20 ms of system time beside a 500 MB process), a render of an ordinary
note a few milliseconds. Each render sets the CPU timer (``ITIMER_PROF``, whose ``SIGPROF``
ends the child) and the soft address-space limit (``RLIMIT_AS``) afresh; a child that died, was
killed at the wall-time deadline, or ran out of memory or depth is dropped and the next render
forks a new one. A kept child holds a copy-on-write view of the parent at its fork, which costs
memory as the parent's pages change: it exits after :data:`IDLE_SECONDS` without a request.

One child per process: a second thread rendering while it is busy, or a function that cannot
be named across processes (a closure), gets a child of its own for that render.

May import: nothing of biji's.
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field

IDLE_SECONDS = 10.0
KEPT_RENDERS = 1000
# The parent stops using a kept child this long before the child would give up waiting.
_IDLE_MARGIN = 2.0
_HEADER = struct.Struct("!Q")
# Frames a render may go deeper than where the child serves it (Python's own default limit).
_RECURSION = 1000
_CHILD_SIGNALS = ("SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM")
# What a child imports that its parent imports too: Pygments' lexers, loaded by a code block.
_KEPT_MODULES = ("pygments.",)

in_child = False


class Stopped(Exception):
    """The child gave no answer: ``wall`` (killed at the deadline), or else it died of
    ``signal`` (None: it exited, or its status was lost)."""

    def __init__(self, wall=False, signal=None):
        super().__init__(wall, signal)
        self.wall, self.signal = wall, signal


@dataclass(frozen=True)
class Limits:
    seconds: float  # CPU
    wall_seconds: float
    megabytes: int  # address space beyond the child's own at the render's start


def run(func, args, limits):
    """``func(*args)`` in a child within ``limits``: ``(outcome, value)``, where ``outcome`` is
    "ok" (``value`` is the result), "error" (the exception it raised), "memory" or "depth".
    Raises :class:`Stopped` when the child gave no answer."""
    try:
        request = pickle.dumps((func, args, limits.seconds, limits.megabytes), 5)
    except (pickle.PicklingError, AttributeError, TypeError):
        request = None
    if request is not None and _kept_lock.acquire(blocking=False):
        try:
            return _run_kept(request, limits)
        finally:
            _kept_lock.release()
    child = _Child.fork(first=(func, args, limits.seconds, limits.megabytes))
    os.close(child.requests)  # no second request: the child exits after the first
    child.requests = None
    try:
        return child.answer(limits.wall_seconds)
    finally:
        child.stop()


def _run_kept(request, limits):
    global _kept
    for attempt in range(2):
        if _kept is not None and not _kept.usable():
            _kept.stop()
            _kept = None
        if _kept is None:
            _kept = _Child.fork()
        child = _kept
        try:
            child.send(request)
            answer = child.answer(limits.wall_seconds)
        except (Stopped, OSError) as error:
            _kept = None
            child.stop()
            # A child that exited without answering never took the request (it gave up waiting
            # for one, or its pipe broke): no verdict on the text, so once more, with a new one.
            taken = isinstance(error, Stopped) and (error.wall or error.signal is not None)
            if attempt == 0 and not taken:
                continue
            if isinstance(error, OSError):
                raise Stopped() from error
            raise
        if answer[0] in {"memory", "depth"}:  # a fresh process for whatever comes next
            _kept = None
            child.stop()
        return answer
    raise Stopped()


@dataclass
class _Child:
    pid: int
    requests: int | None  # the parent's end of each pipe
    replies: int
    owner: int = field(default_factory=os.getpid)
    renders: int = 0
    last_used: float = field(default_factory=time.monotonic)
    stopped: bool = False
    status: int | None = None  # its wait status, once stopped

    @classmethod
    def fork(cls, first=None):
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        # The child's collector leaves what it inherits alone: walking the parent's objects
        # would copy every page of its memory (copy-on-write).
        gc.freeze()
        try:
            pid = os.fork()
        except OSError:
            gc.unfreeze()
            for fd in (request_read, request_write, reply_read, reply_write):
                os.close(fd)
            raise
        if pid == 0:  # the child never returns
            os.close(request_write)
            os.close(reply_read)
            _serve(request_read, reply_write, first)
        gc.unfreeze()
        os.close(request_read)
        os.close(reply_write)
        return cls(pid, request_write, reply_read)

    def usable(self):
        return (
            self.owner == os.getpid()
            and self.renders < KEPT_RENDERS
            and time.monotonic() - self.last_used < IDLE_SECONDS - _IDLE_MARGIN
        )

    def send(self, request):
        _write_all(self.requests, _HEADER.pack(len(request)) + request)

    def answer(self, wall_seconds):
        deadline = time.monotonic() + wall_seconds
        header = _read_exactly(self.replies, _HEADER.size, deadline)
        payload = header and _read_exactly(self.replies, _HEADER.unpack(header)[0], deadline)
        if payload is None:  # the deadline came first
            self.stop()
            raise Stopped(wall=True)
        if not payload:  # it died before answering
            status = self.stop()
            died_of = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
            raise Stopped(signal=died_of)
        self.renders += 1
        self.last_used = time.monotonic()
        outcome, value, imported = pickle.loads(payload)  # noqa: S301 (our own child's bytes)
        _import(imported)
        return outcome, value

    def stop(self):
        """Close the pipes, and in the process that forked it kill the child and reap it
        (once): its wait status, or None."""
        if self.stopped:
            return self.status
        self.stopped = True
        for fd in (self.requests, self.replies):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.requests = self.replies = None
        if self.owner != os.getpid():
            return None
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.status = os.waitpid(self.pid, 0)[1]
        except ChildProcessError:  # SIGCHLD ignored: the kernel reaped it
            pass
        return self.status


_kept: _Child | None = None
_kept_lock = threading.Lock()


def stop_kept():
    """Stop the kept child now (a benchmark counting its CPU time; it would exit idle)."""
    global _kept
    with _kept_lock:
        if _kept is not None:
            _kept.stop()
            _kept = None


def _forget_kept_in_child():
    # A process forked from this one (a gunicorn worker, a render's child) does not share
    # the kept child: it closes its copies of the pipes (stop() kills only its owner's child),
    # so the child sees its owner's end.
    global _kept, _kept_lock
    if _kept is not None:
        _kept.stop()
    _kept, _kept_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_kept_in_child)


# --- the child ------------------------------------------------------------------------------


def _serve(requests, replies, first):
    global in_child
    code = 1
    try:
        in_child = True
        _close_inherited(keep={0, 1, 2, requests, replies})
        for name in _CHILD_SIGNALS:  # the server's or the worker's handlers are not ours
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
        # The same depth for every render, wherever it was asked for (a request is deeper in
        # the stack than a command): the text decides whether it nests too deeply.
        sys.setrecursionlimit(_depth() + _RECURSION)
        if first is not None:
            _write_all(replies, _render(*first))
        while True:
            ready, _, _ = select.select([requests], [], [], IDLE_SECONDS)
            header = ready and _read_exactly(requests, _HEADER.size, None)
            if not header:  # idle, or the parent has gone
                break
            func, args, seconds, megabytes = pickle.loads(  # noqa: S301 (our parent's bytes)
                _read_exactly(requests, _HEADER.unpack(header)[0], None)
            )
            _write_all(replies, _render(func, args, seconds, megabytes))
        code = 0
    finally:
        os._exit(code)


def _close_inherited(keep):
    """Close every file the child inherited but ``keep``: a kept child holding the server's
    listening socket or a client's connection would keep them open after its parent closed
    them (a restarted server could not bind its port; a client would wait for the close)."""
    start = 0
    for fd in [*sorted(keep), os.sysconf("SC_OPEN_MAX")]:
        if fd > start:
            os.closerange(start, fd)
        start = fd + 1


def _render(func, args, seconds, megabytes):
    before = set(sys.modules)
    _limit_memory(megabytes)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        outcome = ("ok", func(*args))
    except MemoryError:
        outcome = ("memory", None)
    except RecursionError:
        outcome = ("depth", None)
    except Exception as error:  # the caller gets it, as if it had rendered itself
        outcome = ("error", error)
    signal.setitimer(signal.ITIMER_PROF, 0)
    imported = sorted(name for name in set(sys.modules) - before if name.startswith(_KEPT_MODULES))
    try:
        payload = pickle.dumps((*outcome, imported), pickle.HIGHEST_PROTOCOL)
    except Exception:
        error = RuntimeError("".join(traceback.format_exception(outcome[1])))
        payload = pickle.dumps(("error", error, imported), pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(payload)) + payload


def _limit_memory(megabytes):
    """The soft limit: what is in use now and ``megabytes`` more (the hard limit is left as
    it is, so the next render may have its own)."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            in_use = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        limit = in_use + megabytes * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no RLIMIT_AS: time still bounds the render


def _depth():
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


# --- pipes ------------------------------------------------------------------------------------


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd, size, deadline):
    """``size`` bytes; ``b""`` at the end of the pipe, None when ``deadline`` came first."""
    chunks, left = [], size
    while left:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return b""
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _import(names):
    """Modules a child imported (a code block's lexer): imported here too, so that the next
    child finds them loaded."""
    import importlib

    for name in names:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: S112 (a module only the child could import: no matter)
                continue
