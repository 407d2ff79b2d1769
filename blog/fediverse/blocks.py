"""Blocked domains: their requests are refused (403) and their followers removed."""

from blog.fediverse.remote import origin_of
from blog.models import DomainBlock, Follower


def _candidates(host) -> list[str]:
    """``host`` (with its port, if any), then each parent domain: a block of example.com
    covers mastodon.example.com."""
    host = host.lower()
    names = [host]
    bare = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if bare != host:
        names.append(bare)
    labels = bare.split(".")
    names.extend(".".join(labels[index:]) for index in range(1, len(labels) - 1))
    return names


def is_blocked(url_or_host) -> bool:
    host = origin_of(url_or_host) if "/" in url_or_host else url_or_host.lower()
    if not host:
        return False
    return DomainBlock.objects.filter(domain__in=_candidates(host)).exists()


def remove_blocked_followers(domain) -> int:
    """Drop the followers on ``domain`` and its subdomains; their number."""
    domain = domain.lower()
    blocked = [
        follower.pk
        for follower in Follower.objects.only("pk", "remote_actor")
        if domain in _candidates(origin_of(follower.remote_actor))
    ]
    return Follower.objects.filter(pk__in=blocked).delete()[0]
