#!/usr/bin/env bash
# The page benchmark (make bench-pages): 10,000 generated notes in a scratch SQLite database,
# gunicorn with 2 workers on 127.0.0.1, Debian's wrk. Options go to the command, e.g.
#   scripts/bench_pages.sh --notes 1000 --duration 3
# BENCH_COMMAND=traffic runs the traffic benchmark instead (make bench-traffic).
# BENCH_DB, BENCH_STATIC and BENCH_DATABASE_URL choose where the data and static files go.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get install -y wrk >/dev/null || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y wrk >/dev/null; }
fi

BENCH_DB=${BENCH_DB:-/tmp/biji-pages-bench.sqlite3}
export DATABASE_URL=${BENCH_DATABASE_URL:-sqlite:///$BENCH_DB}
export STATIC_ROOT=${BENCH_STATIC:-/tmp/biji-pages-bench-static}
export DJANGO_SECRET_KEY=${DJANGO_SECRET_KEY:-bench-only}
export DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
export DJANGO_LOG_LEVEL=ERROR
unset REDIS_URL DJANGO_DEBUG
exec timeout "${BENCH_TIMEOUT:-1800}" .venv/bin/python -m benchmarks "${BENCH_COMMAND:-pages}" "$@"
