#!/usr/bin/env bash
# Debian's chromium and CJK fonts for the browser tests, a Java runtime for the Nu HTML
# Checker, newsboat and tmux (a real text feed reader, tests/test_feed_math_text.py), and axe-core, vnu-jar and Lighthouse from npm (exactly package-lock.json's).
# Playwright's own browser download does not work here; the tests drive /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# grep reads all of fc-list: with -q it would stop at the first match, and fc-list, cut off,
# would fail the pipe (pipefail) and reinstall the fonts on every run.
fc-list 2>/dev/null | grep -i "Noto Sans CJK" >/dev/null || need+=(fonts-noto-cjk)
command -v npm >/dev/null || need+=(npm)
command -v java >/dev/null || need+=(default-jre-headless)
command -v newsboat >/dev/null || need+=(newsboat)
command -v tmux >/dev/null || need+=(tmux)
bash scripts/apt-install.sh "${need[@]+"${need[@]}"}"

# Again whenever the lock changed since the last install (npm keeps a copy of what it
# installed in node_modules/.package-lock.json; -nt is also true when that copy is missing).
if [ ! -f node_modules/axe-core/axe.min.js ] || [ ! -f node_modules/vnu-jar/build/dist/vnu.jar ] \
    || [ ! -f node_modules/lighthouse/package.json ] \
    || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
