"""``/healthz`` for a load balancer (blog.ops.healthz): 200 and a small JSON report while the
database answers, 503 when it does not, a cache outage alone never failing it; answered for any
Host (probes come by IP address) and never kept by biji's page cache or any other."""

import json
import socket

import pytest
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from blog.caching import release

PROBE = {"HTTP_HOST": "10.0.0.7"}  # a load balancer's probe: by address, not in ALLOWED_HOSTS


@pytest.mark.django_db
def test_it_answers_a_probe_by_address_with_a_small_json_report(client):
    assert client.get("/", **PROBE).status_code == 400  # what any other path gets
    response = client.get("/healthz", **PROBE)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert json.loads(response.content) == {
        "status": "ok",
        "database": "ok",
        "cache": "ok",
        "release": release.fingerprint(),
    }
    head = client.head("/healthz", **PROBE)
    assert (head.status_code, head.content, head["Cache-Control"]) == (200, b"", "no-store")
    assert client.post("/healthz", **PROBE).status_code == 405


@pytest.mark.django_db
def test_every_probe_asks_the_database_none_is_kept(client):
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/healthz", **PROBE)
        assert [query["sql"] for query in queries] == ["SELECT 1"]
        assert "ETag" not in response and "Last-Modified" not in response


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once it is closed


@pytest.mark.django_db
def test_an_unreachable_database_is_a_503(client, tmp_path):
    unreachable = connections.create_connection("default")
    if unreachable.vendor == "sqlite":
        place = {"NAME": str(tmp_path / "no-such-folder" / "db.sqlite3")}
    else:
        place = {"HOST": "127.0.0.1", "PORT": closed_port()}
    unreachable.settings_dict = {**unreachable.settings_dict, **place}
    reachable = connections["default"]
    connections["default"] = unreachable
    try:
        response = client.get("/healthz", **PROBE)
    finally:
        connections["default"] = reachable
        unreachable.close()
    assert response.status_code == 503
    assert response["Cache-Control"] == "no-store"
    assert json.loads(response.content)["database"] == "unreachable"


@pytest.mark.django_db
def test_a_cache_outage_alone_is_degraded_not_down(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.1, "socket_timeout": 0.1},
        }
    }
    response = Client().get("/healthz", **PROBE)
    assert response.status_code == 200
    report = json.loads(response.content)
    assert (report["database"], report["cache"]) == ("ok", "degraded")
