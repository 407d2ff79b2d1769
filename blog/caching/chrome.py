"""The site's chrome (header, footer, the head's feed and style links), rendered once per content
state and language in each process.

It is the same on every page of one interface language, asked for several times a page, and a
few kilobytes: process memory, where a round trip to a shared cache would cost what rendering
does. Only the current state's copies are kept. Saving the site settings or a navigation link
also drops them at once (:func:`forget_chrome`), as it does the settings' copy, so that what the
same transaction renders afterwards shows the change.
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
