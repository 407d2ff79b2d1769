"""Where a feed says its WebSub hub is: ``rel="hub"`` and ``rel="self"``.

A WebSub subscriber (a feed reader, or a service such as Feedly or Inoreader) discovers the
hub and the topic's own URL from the feed's HTTP ``Link`` header or, failing that, from the
feed's ``<link>`` (Atom) and ``<atom:link>`` (RSS) elements (WebSub §4). The feeds name
themselves in every case (Django's writers add ``rel="self"``); the hub, and the header, only
when ``settings.BIJI_WEBSUB_HUB`` is set. Both come from settings and the URL alone, so a
feed's bytes stay the same for everyone, and the page cache keeps the header with the feed.
The pings themselves are :mod:`blog.mail.websub`'s.
"""

from django.conf import settings


def hub():
    """The hub's URL, or "" when none is configured."""
    return settings.BIJI_WEBSUB_HUB


def link_header(self_url):
    """The ``Link`` header of the feed at ``self_url``, or None without a hub."""
    if not hub():
        return None
    return f'<{hub()}>; rel="hub", <{self_url}>; rel="self"'
