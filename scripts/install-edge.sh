#!/usr/bin/env bash
# Varnish 7 and varnish-modules (its xkey purges by key), from Debian: the edge the tests and
# `make bench-edge` put in front of biji (config/varnish/biji.vcl).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v varnishd >/dev/null && compgen -G "/usr/lib/*/varnish/vmods/libvmod_xkey.so" >/dev/null; then
  exit 0
fi
bash scripts/apt-install.sh varnish varnish-modules
