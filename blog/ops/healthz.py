"""``GET /healthz`` (and ``HEAD``) for a load balancer's or an edge's probe: 200 while this process
can serve pages, 503 while it cannot.

It is the first middleware, so it answers before anything else looks at the request: before the
ALLOWED_HOSTS check (probes come by IP address), the HTTPS redirect (they come by plain HTTP)
and the page cache, which never sees it. ``Cache-Control: no-store`` keeps it out of every other
cache, Varnish included: a probe must reach this process.

What it reports, as JSON: the database, which must answer one query (a connection that cannot
be made fails within the database's connect timeout: ``connect_timeout`` in
:data:`config.settings.POSTGRESQL_OPTIONS`); the cache, ``ok`` or ``degraded`` (biji serves from
the database without it, so an outage alone never fails the probe: :mod:`blog.caching.store`);
and the release the process serves (:mod:`blog.caching.release`).
"""

import logging

from django.db import DEFAULT_DB_ALIAS, Error, connections
from django.http import HttpResponse, HttpResponseNotAllowed, JsonResponse

from blog.caching import release, store

logger = logging.getLogger(__name__)

PATH = "/healthz"
PROBE_KEY = "healthz"  # written by every probe: a write is what tells an outage from a miss


class HealthzMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.failing = False  # the database failed the last probe (logged once per streak)

    def __call__(self, request):
        if request.path_info != PATH:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = HttpResponseNotAllowed(["GET", "HEAD"])
        else:
            response = self.report()
            if request.method == "HEAD":
                response = HttpResponse(
                    status=response.status_code, content_type="application/json"
                )
        response["Cache-Control"] = "no-store"
        response["X-Content-Type-Options"] = "nosniff"
        return response

    def report(self):
        database_ok = self.database_answers()
        cache_ok = store.set(PROBE_KEY, 1, timeout=60)
        body = {
            "status": "ok" if database_ok else "unavailable",
            "database": "ok" if database_ok else "unreachable",
            "cache": "ok" if cache_ok else "degraded",
            "release": release.fingerprint(),
        }
        return JsonResponse(body, status=200 if database_ok else 503)

    def database_answers(self):
        try:
            with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        except Error as error:
            if not self.failing:
                logger.warning("/healthz: the database does not answer (%s): 503", error)
            self.failing = True
            return False
        if self.failing:
            logger.warning("/healthz: the database answers again")
        self.failing = False
        return True
