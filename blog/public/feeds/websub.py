"""Where a feed says its WebSub hub is: ``rel="hub"`` and ``rel="self"``, in the ``Link`` header and
the feed's own links, only when ``BIJI_WEBSUB_HUB`` is set. From settings and the URL alone, so a
feed's bytes are the same for everyone. The pings are :mod:`blog.mail.websub`'s."""

from django.conf import settings


def hub():
    """The hub's URL, or "" when none is configured."""
    return settings.BIJI_WEBSUB_HUB


def link_header(self_url):
    """The ``Link`` header of the feed at ``self_url``, or None without a hub."""
    if not hub():
        return None
    return f'<{hub()}>; rel="hub", <{self_url}>; rel="self"'
