#!/usr/bin/env bash
# Debian's chromium and CJK fonts for the browser tests, a Java runtime for the Nu HTML
# Checker, and axe-core and vnu-jar from npm.
# Playwright's own browser download does not work here; the tests drive /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need+=(fonts-noto-cjk)
command -v npm >/dev/null || need+=(npm)
command -v java >/dev/null || need+=(default-jre-headless)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -f node_modules/axe-core/axe.min.js ] || [ ! -f node_modules/vnu-jar/build/dist/vnu.jar ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
