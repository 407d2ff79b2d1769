#!/usr/bin/env bash
# The static-site generators the Markdown export is built with in the tests
# (tests/test_export_generators.py): Debian's hugo, jekyll and ruby-jekyll-polyglot with
# apt-get when missing, and Hexo from npm (exactly package-lock.json's, beside the browser
# tests' tools). Quick when all is installed (a few look-ups, ~0.1 s).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v hugo >/dev/null || need+=(hugo)
command -v jekyll >/dev/null || need+=(jekyll)
dpkg-query -W -f='${Status}' ruby-jekyll-polyglot 2>/dev/null | grep "ok installed" >/dev/null \
  || need+=(ruby-jekyll-polyglot)
command -v npm >/dev/null || need+=(npm)
bash scripts/apt-install.sh "${need[@]+"${need[@]}"}"

# Again whenever the lock changed since the last install (as scripts/install-browser-deps.sh).
if [ ! -f node_modules/hexo/package.json ] || [ ! -f node_modules/hexo-renderer-marked/package.json ] \
    || [ ! -x node_modules/.bin/hexo ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
