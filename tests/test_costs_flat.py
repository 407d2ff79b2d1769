"""Public pages cost the same number of queries, at most five (six on a few pages with every
cache empty), however many notes the blog holds: cold (page cache off, caches
empty), from the page cache (one query) and conditional (one query); a search on PostgreSQL one
more, its time bound's ``SET LOCAL`` (blog/search/deadline.py). Measured with the generated
blog of the page benchmark (benchmarks.data) at two sizes, with commits, as in production.
"""

import pytest
from django.db import connection
from django.test import override_settings

from benchmarks import data as benchdata
from tests.conftest import clear_test_cache

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = 5


def budget(name):
    bound = name.startswith("search") and connection.vendor == "postgresql"
    return BUDGET + 1 if bound else BUDGET


def count_queries(client, url, **headers):
    queries = []

    def record(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        response = client.get(url, **headers)
    return len(queries), response


def costs(client):
    result = {}
    for name, url in benchdata.sample_urls().items():
        with override_settings(BIJI_PAGE_CACHE_SECONDS=0):
            clear_test_cache()  # only this session's keys: never FLUSHDB on a shared Redis
            cold, response = count_queries(client, url)
            assert response.status_code == 200, (name, url, response.status_code)
            again, _response = count_queries(client, url)  # memos kept, page not
        client.get(url)  # stored in the page cache
        warm, response = count_queries(client, url)
        etag = response.get("ETag", "")
        conditional, answer = count_queries(client, url, HTTP_IF_NONE_MATCH=etag)
        if name.startswith("search"):
            # Never kept: results follow the index, updated after the commit.
            assert response.status_code == 200
        else:
            assert answer.status_code == 304, name
            assert (warm, conditional) == (1, 1), name
        result[name] = (cold, again)
    return result


@pytest.mark.slow
def test_query_counts_do_not_grow_with_the_blog(client):
    benchdata.generate(150, seed=1)
    small = costs(client)
    benchdata.generate(900, seed=1)
    large = costs(client)
    assert large == small
    for name, (cold, again) in large.items():
        # With the site settings cached (production: once per change, for every worker).
        assert again <= budget(name), (name, again)
        # Everything emptied (the first request after a change): the settings and a list's
        # total are read again; a note in a series or a tag page then costs six.
        assert cold <= budget(name) + 1, (name, cold)
