"""Every render bounded: the text's size, and the CPU time, wall time and memory of rendering it.

Python-Markdown renders some inputs in quadratic time or worse (a run of unclosed ``[``, of
``$``, thousands of footnotes), and pure Python cannot be stopped from another thread. So a
render runs in a child process (:mod:`blog.rendering.render_process`: forked once and kept
for the renders that follow), which the kernel holds to its bounds:

* size: :data:`MAX_MARKDOWN_BYTES` of UTF-8, checked before anything runs;
* CPU time: ``BIJI_RENDER_SECONDS`` (``ITIMER_PROF``: ``SIGPROF`` ends the child);
* memory: ``BIJI_RENDER_MEMORY_MB`` of address space beyond what the child holds as the render
  starts (``RLIMIT_AS``);
* wall time: ``BIJI_RENDER_WALL_SECONDS``, after which the parent kills the child (a machine
  too busy to give it its CPU time, or a child stuck).

A render past a bound raises :class:`RenderRefused`, whose message (in the active language)
says what to do. The same render asked for twice is done once: results are kept by text in a
small per-process memo, so the admin can render before its write transaction opens and the
save inside it finds the result (:func:`render_bounded`'s callers need do nothing more).

Where ``fork`` does not exist the render runs in-process, bounded by size alone.

May import: :mod:`blog.rendering.render_process`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import threading
from collections import OrderedDict

from django.conf import settings
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from blog.rendering import render_process

logger = logging.getLogger(__name__)

MAX_MARKDOWN_BYTES = 1024 * 1024

DEFAULT_SECONDS = 3.0
DEFAULT_WALL_SECONDS = 10.0
DEFAULT_MEMORY_MB = 512

# The memo: the last renders, by kind, text and arguments; a few MB of text at most.
_MEMO_ENTRIES = 32
_MEMO_TEXT_BYTES = 8 * 1024 * 1024


class RenderRefused(ValueError):
    """A text was not rendered: over the size limit, or past a bound while rendering.

    ``bound``: which one ("size", "time", "memory", "depth", "wall"). A "wall" refusal is transient:
    the machine was too busy, not the text too hard; the same text may render when tried again
    (such a refusal is not memoised)."""

    def __init__(self, message, bound):
        super().__init__(message)
        self.message = message
        self.bound = bound

    @property
    def transient(self):
        return self.bound == "wall"

    def __str__(self):
        return str(self.message)


def too_large(size):
    return RenderRefused(
        format_lazy(
            _(
                "The text is {size} bytes: a text may be at most {limit} bytes (1 MB). Split it "
                "into several notes (a series keeps them together)."
            ),
            size=f"{size:,}",
            limit=f"{MAX_MARKDOWN_BYTES:,}",
        ),
        "size",
    )


def _too_slow(seconds):
    return RenderRefused(
        format_lazy(
            _(
                "The text could not be rendered within {seconds} s, the limit for one text. A "
                "long run of unclosed brackets, backticks or dollar signs does this; so does a "
                "very long text, which is better split into several notes."
            ),
            seconds=f"{seconds:g}",
        ),
        "time",
    )


def _too_big_to_render(megabytes):
    return RenderRefused(
        format_lazy(
            _(
                "Rendering the text needed more than {megabytes} MB of memory, the limit for one "
                "text. Deeply nested lists, quotes or HTML do this; simplify or split it."
            ),
            megabytes=megabytes,
        ),
        "memory",
    )


def _too_deep():
    return RenderRefused(
        _(
            "The text nests too deeply to render: lists, quotes or HTML inside one another "
            "hundreds of times. Flatten it."
        ),
        "depth",
    )


def _busy():
    return RenderRefused(
        _("The server was too busy to render the text in time. Save again in a moment."),
        "wall",
    )


def markdown_bytes(text):
    """The size the limit counts: UTF-8 bytes (counted only when it could matter)."""
    if len(text) * 4 <= MAX_MARKDOWN_BYTES:
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def check_size(text):
    """Raise :class:`RenderRefused` for a text over :data:`MAX_MARKDOWN_BYTES`."""
    size = markdown_bytes(text or "")
    if size > MAX_MARKDOWN_BYTES:
        raise too_large(size)


def _limits():
    return (
        float(getattr(settings, "BIJI_RENDER_SECONDS", DEFAULT_SECONDS)),
        float(getattr(settings, "BIJI_RENDER_WALL_SECONDS", DEFAULT_WALL_SECONDS)),
        int(getattr(settings, "BIJI_RENDER_MEMORY_MB", DEFAULT_MEMORY_MB)),
    )


class _Memo:
    """The last renders and refusals, by key; bounded by entries and by their texts' size."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = OrderedDict()  # key -> (text size, outcome)
        self.size = 0

    def get(self, key):
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
                return found[1]
        return None

    def put(self, key, size, outcome):
        with self.lock:
            if key in self.entries:
                return
            self.entries[key] = (size, outcome)
            self.size += size
            while self.entries and (
                len(self.entries) > _MEMO_ENTRIES or self.size > _MEMO_TEXT_BYTES
            ):
                _, (dropped, _) = self.entries.popitem(last=False)
                self.size -= dropped

    def clear(self):
        with self.lock:
            self.entries.clear()
            self.size = 0


_memo = _Memo()
_warmed = False


def forget():
    """Empty the memo (a renderer upgrade in a running process, tests)."""
    _memo.clear()


def render_bounded(kind, func, text, *args):
    """``func(text, *args)`` within the bounds, memoised by ``kind``, text and ``args``.

    ``func`` must be a pure function of its arguments whose result pickles.
    """
    text = text or ""
    check_size(text)
    encoded = text.encode("utf-8", "surrogatepass")
    key = (kind, hashlib.blake2b(encoded, digest_size=20).digest(), args)
    found = _memo.get(key)
    if found is not None:
        status, value = found
        if status == "refused":
            raise value
        return value
    try:
        value = _run(func, (text, *args))
    except RenderRefused as refusal:
        if not refusal.transient:
            _memo.put(key, len(encoded), ("refused", refusal))
        raise
    _memo.put(key, len(encoded), ("ok", value))
    return value


def _run(func, args):
    if render_process.in_child or not hasattr(os, "fork"):
        return func(*args)
    _warm_up(func, args)
    seconds, wall_seconds, megabytes = _limits()
    try:
        outcome, value = render_process.run(
            func, args, render_process.Limits(seconds, wall_seconds, megabytes)
        )
    except render_process.Stopped as stopped:
        if stopped.wall:
            logger.warning("A render was stopped after %s s of wall time", wall_seconds)
            raise _busy() from None
        if stopped.signal == signal.SIGPROF:
            raise _too_slow(seconds) from None
        logger.warning("A render's process died (signal %s)", stopped.signal)
        raise _too_big_to_render(megabytes) from None
    if outcome == "ok":
        return value
    if outcome == "memory":
        raise _too_big_to_render(megabytes)
    if outcome == "depth":
        raise _too_deep()
    raise value


def _warm_up(func, args):
    """Import, once, what every render uses, so that children start with it loaded."""
    global _warmed
    if not _warmed:
        _warmed = True
        func("# a\n\n*b* `c` $d$\n\n```python\ne\n```\n", *args[1:])
