#!/usr/bin/env bash
# Lighthouse (mobile and desktop) on the static copy of the demo blog: its home, a note and its
# search page, as `manage.py serve_site` serves them (a host that reads _headers). Prints each
# page's four scores. `make lighthouse-static`; needs `make setup browser-deps demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${PORT:-8124}"
folder="$(mktemp -d)"
export DJANGO_SECRET_KEY="$(cat var/secret-key)" SITE_URL="http://127.0.0.1:$port"
.venv/bin/python manage.py build_site "$folder/site" --base-url "$SITE_URL" | tail -n 1
.venv/bin/python manage.py serve_site "$folder/site" --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server; rm -rf "$folder"' EXIT
sleep 2
note="$(ls "$folder/site/notes" | head -n 1)"
echo "$(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for preset in mobile desktop; do
  for path in / "/notes/$note/" "/search/?q=GPU"; do
    flags=(); [ "$preset" = desktop ] && flags=(--preset=desktop)
    CHROME_PATH=/usr/bin/chromium node_modules/.bin/lighthouse "$SITE_URL$path" "${flags[@]}" \
      --quiet --output=json --output-path="$folder/lh.json" --chrome-flags="--headless \
      --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
      --disable-sync --no-first-run" >/dev/null 2>&1 || true
    .venv/bin/python scripts/lighthouse_scores.py "$folder/lh.json" "$preset" "$path"
  done
done
