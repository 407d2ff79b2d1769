#!/usr/bin/env bash
# Debian's chromium and CJK fonts for the browser tests, and axe-core from npm.
# Playwright's own browser download does not work here; the tests drive /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need+=(fonts-noto-cjk)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -f node_modules/axe-core/axe.min.js ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
