"""The site's chrome (header, footer, head links), rendered once per content state and language
in each process's memory: the same on every page and read several times a page, it would cost
as much to fetch from a shared cache as to render.
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
    """The HTML ``render()`` makes for chrome part ``name``; ``vary``: anything else it shows."""
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
    """Drop it now, so a page rendered later in the same transaction shows new settings."""
    with _lock:
        _kept.clear()


@receiver(setting_changed)
def _settings_changed(**kwargs):
    """``override_settings`` (tests) may change the URLs or languages it shows."""
    forget_chrome()
