"""The tests keep to their own cache key space: emptying the cache between tests deletes what
the tests wrote and nothing else on a shared Redis server."""

import os
import secrets

import pytest
from django.core.cache import cache

from tests.conftest import TEST_KEY_PREFIX, clear_test_cache


def test_cache_keys_carry_the_session_prefix():
    assert cache.make_key("anything").startswith(f"{TEST_KEY_PREFIX}:")


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="REDIS_URL is not set")
def test_cleanup_deletes_our_keys_and_keeps_everybody_else_s():
    import redis

    server = redis.Redis.from_url(os.environ["REDIS_URL"])
    token = secrets.token_hex(6)
    foreign = [
        f"not-ours:{token}",  # another program's key
        f"biji:1:site-settings:{token}",  # the site's own keys, under its default prefix
        f"biji-test-{token}:1:other-session",  # another test session's prefix
    ]
    for key in foreign:
        server.set(key, "keep me", ex=300)
    try:
        cache.set("ours", "temporary")
        assert server.exists(cache.make_key("ours"))

        clear_test_cache()

        assert cache.get("ours") is None
        assert not server.exists(cache.make_key("ours"))
        assert [server.get(key) for key in foreign] == [b"keep me"] * len(foreign)
    finally:
        server.delete(*foreign)
