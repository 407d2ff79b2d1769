"""Switch biji's caching mechanisms off from outside, to measure what each one is worth.

Nothing in ``blog/`` or ``config/`` knows about this: each mechanism is switched off by
replacing the one module-level name it is reached through (every caching module reads the
cache through its own ``store``) or by disconnecting its receivers. :func:`switched_off` does
it in this process and undoes it afterwards; :mod:`benchmarks.without` does it in gunicorn's
workers for their whole life (``BIJI_BENCH_WITHOUT``).

The page cache is not here: ``BIJI_PAGE_CACHE_SECONDS=0`` turns it off (the benchmark's cold
column).
"""

from contextlib import contextmanager

from django.core.signals import request_finished, request_started

from blog.caching import fragments, memo, settings_copy, version
from blog.caching import pages as page_cache

ENV = "BIJI_BENCH_WITHOUT"


class NullStore:
    """A cache that keeps nothing: every read misses, every write is dropped."""

    def get(self, key, default=None, *, alias="default"):
        return default

    def get_many(self, keys, *, alias="default"):
        return {}

    def set(self, key, value, timeout=None, *, alias="default"):
        return False

    def set_many(self, values, timeout=None, *, alias="default"):
        return False

    def delete(self, key, *, alias="default"):
        return False


def _replace(module, name, replacement):
    """Set ``module.name``; returns the undo. Fails if the name is gone (code moved on)."""
    if not hasattr(module, name):
        raise RuntimeError(f"{module.__name__}.{name} no longer exists: update {__name__}")
    original = getattr(module, name)
    setattr(module, name, replacement)
    return lambda: setattr(module, name, original)


def _null_store(module):
    return lambda: _replace(module, "store", NullStore())


def _without_request_memo():
    """Every ``version.current()`` queries: no memo between request_started and _finished."""
    receivers = [
        (request_started, version.start_request, "blog.content.request_started"),
        (request_finished, version.finish_request, "blog.content.request_finished"),
    ]
    for signal, _receiver, uid in receivers:
        if not signal.disconnect(dispatch_uid=uid):
            raise RuntimeError(f"no receiver {uid!r} to disconnect: update {__name__}")

    def undo():
        for signal, receiver, uid in receivers:
            signal.connect(receiver, dispatch_uid=uid)

    return undo


def _render_every_time(name, render, *vary, **kwargs):
    return render()


def _without_chrome():
    from blog.templatetags import blog_tags

    return _replace(blog_tags, "chrome", _render_every_time)


def _without_resolver_memo():
    return _replace(page_cache, "_public_view", page_cache._public_view.__wrapped__)


# name: (what it is, how to switch it off: a function returning the undo)
MECHANISMS = {
    "fragments": ("list entries rendered once per version", _null_store(fragments)),
    "memos": ("per-version memos (counts, dates, pages' data)", _null_store(memo)),
    "settings": ("the site settings' copy", _null_store(settings_copy)),
    "request-memo": ("the content version read once per request", _without_request_memo),
    "chrome": ("header, footer and head links kept per state", _without_chrome),
    "resolver-memo": ("the page cache's memo of URL resolution", _without_resolver_memo),
}


def parse(text):
    """``"fragments, memos"`` → ``("fragments", "memos")``; unknown names raise ValueError."""
    names = tuple(dict.fromkeys(n.strip() for n in (text or "").split(",") if n.strip()))
    unknown = [name for name in names if name not in MECHANISMS]
    if unknown:
        hint = " (the page cache: BIJI_PAGE_CACHE_SECONDS=0)" if "page-cache" in unknown else ""
        raise ValueError(
            f"unknown mechanism(s) {', '.join(unknown)}{hint}; known: {', '.join(MECHANISMS)}"
        )
    return names


def switch_off(names):
    """Switch the named mechanisms off in this process; returns a function undoing it."""
    undos = []

    def undo():
        for one in reversed(undos):
            one()

    try:
        for name in parse(",".join(names)):
            undos.append(MECHANISMS[name][1]())
    except BaseException:
        undo()
        raise
    return undo


@contextmanager
def switched_off(names):
    undo = switch_off(names)
    try:
        yield
    finally:
        undo()
