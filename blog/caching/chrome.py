"""The site's chrome — header, footer, the head's feed and style links — rendered once per
content state and language in each process.

Those parts are the same on every page of one interface language: they show the site
settings, the navigation, fixed URLs and static files. Rendering them took ~1.6 ms of a note
page's ~3.7 ms of template time (twenty URL reversals, a dozen translations, the navigation's
paths), on every page the page cache did not have. Their HTML is kept in the process, not in
the shared cache: a few kilobytes per language, asked for several times a page, where a Redis
round trip would cost about what rendering does.

The key is the content state's (:attr:`blog.caching.version.State.key`: release, version,
next scheduled publication), so a settings edit, any content change or a deploy renders the
chrome again; only the newest state's copies are kept. Saving the site settings drops them at
once too, as it does the settings' copy (:mod:`blog.caching.settings_copy`).
"""

import threading

from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS
from django.dispatch import receiver
from django.utils import translation

from blog.caching import version

_lock = threading.Lock()
_kept: dict[tuple, str] = {}
_kept_state: list[str] = [""]


def chrome(name, render, *vary, using=DEFAULT_DB_ALIAS):
    """The HTML ``render()`` makes for the chrome part ``name`` in the current language and
    content state; ``vary``: anything else it shows (the year of the copyright line)."""
    state = version.current(using).key
    key = (using, translation.get_language(), name, *vary)
    with _lock:
        if _kept_state[0] != state:
            _kept.clear()
            _kept_state[0] = state
        html = _kept.get(key)
    if html is None:
        html = render()
        with _lock:
            if _kept_state[0] == state:
                _kept[key] = html
    return html


def forget_chrome():
    """Drop the kept chrome now: the site settings changed, and a page rendered before the
    change commits (later in the same transaction) must show them."""
    with _lock:
        _kept.clear()


@receiver(setting_changed)
def _settings_changed(**kwargs):
    """Django settings changed under a running process (``override_settings`` in tests): the
    URLs, static names or languages the kept chrome shows may have too."""
    forget_chrome()
